package dbf0.common.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Checks of the paths a command is about to create, made before it does anything: a mistyped path
 * is a usage error that names it, not a tree of new directories or an empty store. A command
 * creates only the last part of a path; the parent must be there already.
 */
public final class CliPaths {

    private CliPaths() {}

    /**
     * A directory the command creates if missing or reopens if there.
     *
     * @param what how the command line names it ({@code --data-dir}, {@code DIR})
     * @return {@code dir}
     * @throws picocli.CommandLine.ParameterException if {@code dir} is a file, or it is missing and
     *     so is its parent
     */
    public static Path directory(CommandSpec spec, String what, Path dir) {
        if (Files.isDirectory(dir)) {
            return dir;
        }
        if (Files.exists(dir)) {
            throw Cli.usage(
                    spec,
                    what + " " + dir + ": is a file, not a directory",
                    "give a directory, new or one " + Cli.name(spec) + " made before");
        }
        parentExists(spec, what, dir);
        return dir;
    }

    /**
     * A file the command creates or overwrites.
     *
     * @param what how the command line names it ({@code --history})
     * @return {@code file}
     * @throws picocli.CommandLine.ParameterException if {@code file} is a directory, or its parent
     *     is missing
     */
    public static Path file(CommandSpec spec, String what, Path file) {
        if (Files.isDirectory(file)) {
            throw Cli.usage(
                    spec,
                    what + " " + file + ": is a directory, not a file",
                    "give the name of a file to write");
        }
        parentExists(spec, what, file);
        return file;
    }

    private static void parentExists(CommandSpec spec, String what, Path path) {
        Path parent = path.getParent() != null ? path.getParent() : Path.of("").toAbsolutePath();
        if (Files.isDirectory(parent)) {
            return;
        }
        String problem = Files.exists(parent) ? "is not a directory" : "does not exist";
        throw Cli.usage(
                spec,
                what + " " + path + ": its parent " + parent + " " + problem,
                Files.exists(parent)
                        ? "give a path under a directory"
                        : "if that is the path you meant, create the parent first: mkdir -p "
                                + parent);
    }
}
