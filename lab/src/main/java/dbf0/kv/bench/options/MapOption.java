package dbf0.kv.bench.options;

import dbf0.common.cli.Cli;
import dbf0.kv.storage.MapBackends;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

/** {@code --map}: the map a server runs over, checked before anything starts. */
public final class MapOption {

    @Option(
            names = "--map",
            description =
                    "map backend: hashmap (not thread-safe), hashtable, synchronized, rwlock,"
                            + " striped (striped:N), concurrent, skiplist, or a Map class name"
                            + " (default: ${DEFAULT-VALUE})")
    String map;

    /**
     * @param defaultMap the map when {@code --map} is absent; picocli shows it as the default
     */
    public MapOption(String defaultMap) {
        this.map = defaultMap;
    }

    /** The map's name once {@link MapBackends} knows it; otherwise a bad argument. */
    public String validated(CommandSpec spec) {
        return check(spec, map);
    }

    /** The same check for a map named elsewhere on the command line (a positional, a list). */
    public static String check(CommandSpec spec, String map) {
        return Cli.parameter(
                spec,
                () -> {
                    MapBackends.validate(map);
                    return map;
                });
    }
}
