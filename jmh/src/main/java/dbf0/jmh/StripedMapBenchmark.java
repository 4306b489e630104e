package dbf0.jmh;

import org.openjdk.jmh.annotations.Param;

/**
 * The same GET, PUT and mix as {@link MapBackendBenchmark}, on the striped backends: {@code
 * striped} (16 stripes), {@code striped:64}, and {@code rwlock} (one read/write lock) for scale.
 * Why its own class: it compares {@link dbf0.kv.storage.StripedMap} across versions of dbf0 (run it
 * on two builds, side by side) without the other backends' run time.
 *
 * <p>From the repository's root, with a JDK 21 or newer as {@code java}:
 *
 * <pre>
 * ./mvnw -q install -DskipTests &amp;&amp; ./mvnw -q -f jmh/pom.xml package
 * for t in 1 2 4; do
 *   java -jar jmh/target/benchmarks.jar StripedMapBenchmark -t $t -f 1 -wi 2 -w 1s -i 5 -r 1s
 * done
 * </pre>
 *
 * Or {@code scripts/jmh.sh StripedMapBenchmark -t 2}. One backend only: {@code -p backend=striped}.
 */
public class StripedMapBenchmark extends AbstractMapBenchmark {

    @Param({"striped", "striped:64", "rwlock"})
    public String backend;

    @Override
    protected String backend() {
        return backend;
    }
}
