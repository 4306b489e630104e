package dbf0.jmh;

import org.openjdk.jmh.annotations.Param;

/**
 * GET, PUT and a 90% GET / 10% PUT mix on every thread-safe map backend of dbf0's {@link
 * dbf0.kv.storage.MapBackends}: {@code hashtable} and {@code synchronized} (one lock around every
 * call), {@code concurrent} (ConcurrentHashMap) and {@code skiplist} (ConcurrentSkipListMap). Why:
 * it isolates what the storage costs and how each backend scales with threads, which the end-to-end
 * benchmark ({@code ./dbf0 bench}) mixes with sockets and protocol work. What exactly each
 * operation does: {@link AbstractMapBenchmark}.
 *
 * <p>Run at 1, 2 and 4 threads ({@code -t}; the score is the total over all threads), from the
 * repository's root, with a JDK 21 or newer as {@code java}:
 *
 * <pre>
 * ./mvnw -q install -DskipTests &amp;&amp; ./mvnw -q -f jmh/pom.xml package
 * for t in 1 2 4; do
 *   java -jar jmh/target/benchmarks.jar MapBackendBenchmark -t $t -f 1 -wi 2 -w 1s -i 5 -r 1s
 * done
 * </pre>
 *
 * Or {@code scripts/jmh.sh MapBackendBenchmark -t 2}, which builds first. One backend only: {@code
 * -p backend=concurrent}. The unsafe {@code hashmap} is in {@link HashMapBenchmark}.
 */
public class MapBackendBenchmark extends AbstractMapBenchmark {

    @Param({"hashtable", "synchronized", "concurrent", "skiplist"})
    public String backend;

    @Override
    protected String backend() {
        return backend;
    }
}
