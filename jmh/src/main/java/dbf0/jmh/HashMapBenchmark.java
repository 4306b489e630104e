package dbf0.jmh;

import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Threads;

/**
 * The same GET, PUT and mix as {@link MapBackendBenchmark}, on the {@code hashmap} backend (a plain
 * HashMap), and only on one thread: HashMap is not thread-safe, so with several threads the figure
 * would be that of a corrupt map. Why measure it at all: it is the floor, the cost of the map
 * itself with no locking or memory-ordering work, against which the thread-safe backends'
 * one-thread figures show what their safety costs. A run with {@code -t} above 1 fails in setup.
 *
 * <p>From the repository's root, with a JDK 21 or newer as {@code java}:
 *
 * <pre>
 * ./mvnw -q install -DskipTests &amp;&amp; ./mvnw -q -f jmh/pom.xml package
 * java -jar jmh/target/benchmarks.jar HashMapBenchmark -f 1 -wi 2 -w 1s -i 5 -r 1s
 * </pre>
 *
 * Or {@code scripts/jmh.sh HashMapBenchmark}.
 */
@Threads(1)
public class HashMapBenchmark extends AbstractMapBenchmark {

    /** Always {@code hashmap}; a parameter only so that JMH's report names the backend. */
    @Param({"hashmap"})
    public String backend;

    @Override
    protected String backend() {
        return backend;
    }
}
