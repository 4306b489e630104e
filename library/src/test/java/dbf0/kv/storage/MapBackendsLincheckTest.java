package dbf0.kv.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dbf0.common.ByteArrayWrapper;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Lincheck's verdict on every map backend in {@link MapBackends}. Lincheck's model checker runs
 * two-thread scenarios of map operations, explores thread switches at the shared-memory accesses
 * inside them, and compares each outcome with the same operations run one at a time.
 *
 * <ul>
 *   <li>put, get and remove are linearizable on every backend {@link MapBackends#isThreadSafe}
 *       accepts, and not on {@code hashmap}: lincheck finds two HashMap puts of one key that both
 *       answer "there was no value", which no order of the two explains;
 *   <li>with {@code size()} added, the two backends that hold one lock around every call
 *       (hashtable, synchronized) stay linearizable, and ConcurrentHashMap and
 *       ConcurrentSkipListMap do not: their size is a counter updated after the entry itself, which
 *       their Javadoc calls an estimate under concurrent updates. The server answers DBSIZE and
 *       INFO's key count with it.
 * </ul>
 *
 * <p>Each failure is asserted and lincheck's report of it, interleaving and all, copied into the
 * test output. Run on its own (the reports land in {@code
 * target/surefire-reports/dbf0.kv.storage.MapBackendsLincheckTest-output.txt}):
 *
 * <pre>{@code ./mvnw -B -q test -Dtest='MapBackendsLincheckTest'}</pre>
 *
 * <p>Tagged {@code lincheck}: it runs in surefire's {@code lincheck} execution, in a JVM of its own
 * with the flags lincheck's agent wants (pom.xml). docs/4-correctness.md ("Lincheck") says what
 * these verdicts prove and what they do not.
 */
@Tag("lincheck")
class MapBackendsLincheckTest {

    /**
     * Random scenarios, and interleavings of each, that the model checker tries after the
     * hand-written ones. The bound keeps a passing backend's run to seconds on a loaded 2-core
     * machine; {@code -Dlincheck.scenarios=N -Dlincheck.interleavings=M} search harder.
     */
    private static final int SCENARIOS = Integer.getInteger("lincheck.scenarios", 10);

    private static final int INTERLEAVINGS_PER_SCENARIO =
            Integer.getInteger("lincheck.interleavings", 200);

    /**
     * For each thread-safe backend, the largest set of these operations that is linearizable on it.
     */
    private static final Map<String, Class<? extends PerKey>> LINEARIZABLE =
            Map.of(
                    "hashtable", HashtableWithSize.class,
                    "synchronized", SynchronizedWithSize.class,
                    "concurrent", ConcurrentPerKey.class,
                    "skiplist", SkipListPerKey.class,
                    "rwlock", ReadWriteLockWithSize.class,
                    // size() adds up the stripes one lock at a time, so it is only checked per key
                    // here
                    "striped", StripedPerKey.class);

    /** The operation sets lincheck must find non-linearizable, and on which backend. */
    private static final Map<String, Class<? extends PerKey>> NOT_LINEARIZABLE =
            Map.of(
                    "hashmap", HashMapPerKey.class,
                    "concurrent", ConcurrentWithSize.class,
                    "skiplist", SkipListWithSize.class);

    static Stream<String> linearizable() {
        return LINEARIZABLE.keySet().stream().sorted();
    }

    static Stream<String> notLinearizable() {
        return NOT_LINEARIZABLE.keySet().stream().sorted();
    }

    @Test
    void everyRegisteredBackendIsChecked() {
        List<String> threadSafe =
                MapBackends.names().stream().filter(MapBackends::isThreadSafe).toList();
        List<String> notThreadSafe =
                MapBackends.names().stream()
                        .filter(name -> !MapBackends.isThreadSafe(name))
                        .toList();
        assertThat(LINEARIZABLE.keySet()).containsExactlyInAnyOrderElementsOf(threadSafe);
        assertThat(NOT_LINEARIZABLE.keySet()).containsAll(notThreadSafe);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("linearizable")
    void lincheckFindsNoViolation(String backend) {
        Class<? extends PerKey> ops = LINEARIZABLE.get(backend);
        LincheckAssertionError failure =
                catchThrowableOfType(LincheckAssertionError.class, () -> check(ops));
        assertThat(failure).as("lincheck's report on %s", ops.getSimpleName()).isNull();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("notLinearizable")
    void lincheckFindsAViolationAndShowsTheInterleaving(String backend) {
        Class<? extends PerKey> ops = NOT_LINEARIZABLE.get(backend);
        LincheckAssertionError failure =
                catchThrowableOfType(LincheckAssertionError.class, () -> check(ops));
        assertThat(failure)
                .as("lincheck should find %s non-linearizable", ops.getSimpleName())
                .isNotNull();
        assertThat(failure.getMessage())
                .contains(
                        "Invalid execution results",
                        "The following interleaving leads to the error");
        // The interleaving is the evidence: keep it in the test output.
        System.out.println("lincheck on " + ops.getSimpleName() + ":" + failure.getMessage());
    }

    /**
     * The hand-written scenarios go first, so that a known violation is found in the first scenario
     * rather than by luck among the random ones, and so that a backend that passes has passed them.
     */
    private static void check(Class<? extends PerKey> ops) {
        ModelCheckingOptions options =
                new ModelCheckingOptions()
                        .iterations(SCENARIOS)
                        .invocationsPerIteration(INTERLEAVINGS_PER_SCENARIO)
                        .threads(2)
                        .actorsPerThread(2)
                        .actorsBefore(1)
                        .actorsAfter(1)
                        // Two puts of one key at once, then a read: HashMap's check-then-act race.
                        .addCustomScenario(
                                new ExecutionScenario(
                                        List.of(),
                                        List.of(
                                                List.of(actor(ops, "put", 1, 1)),
                                                List.of(actor(ops, "put", 1, 2))),
                                        List.of(actor(ops, "get", 1)),
                                        null));
        if (WithSize.class.isAssignableFrom(ops)) {
            // Two removes of one key: the one that loses sees the winner's removal, so its size()
            // must see it too.
            options.addCustomScenario(
                    new ExecutionScenario(
                            List.of(actor(ops, "put", 2, 1)),
                            List.of(
                                    List.of(actor(ops, "remove", 2), actor(ops, "size")),
                                    List.of(actor(ops, "remove", 2))),
                            List.of(),
                            null));
        }
        options.check(ops);
    }

    /**
     * One call of a scenario. Lincheck's scenario builder is Kotlin-only (it takes Kotlin function
     * references), so the actor is built from its Java method; the five flags are about suspending
     * and blocking calls, which these are not.
     */
    private static Actor actor(Class<?> ops, String name, Object... args) {
        Method method =
                Arrays.stream(ops.getMethods())
                        .filter(
                                m ->
                                        m.getName().equals(name)
                                                && m.getParameterCount() == args.length)
                        .findFirst()
                        .orElseThrow();
        return new Actor(method, List.of(args), false, false, false, false, false);
    }

    /**
     * put, get and remove on two one-byte keys and values: few keys, so that scenarios often touch
     * the same entry. Lincheck finds the operations by reflection and needs them, and the
     * constructors, public.
     */
    @Param(name = "key", gen = IntGen.class, conf = "1:2")
    @Param(name = "value", gen = IntGen.class, conf = "1:2")
    public abstract static class PerKey {
        final Map<ByteArrayWrapper, ByteArrayWrapper> map;

        PerKey(String backend) {
            map = MapBackends.create(backend);
        }

        @Operation
        public ByteArrayWrapper put(
                @Param(name = "key") int key, @Param(name = "value") int value) {
            return map.put(ByteArrayWrapper.of(key), ByteArrayWrapper.of(value));
        }

        @Operation
        public ByteArrayWrapper get(@Param(name = "key") int key) {
            return map.get(ByteArrayWrapper.of(key));
        }

        @Operation
        public ByteArrayWrapper remove(@Param(name = "key") int key) {
            return map.remove(ByteArrayWrapper.of(key));
        }
    }

    /** The same, and {@code size()}: the one operation here that reads the whole map. */
    public abstract static class WithSize extends PerKey {
        WithSize(String backend) {
            super(backend);
        }

        @Operation
        public int size() {
            return map.size();
        }
    }

    // One class per backend and operation set: lincheck builds its instances with a public
    // no-argument constructor, so the backend's name cannot be a constructor argument.

    public static final class HashMapPerKey extends PerKey {
        public HashMapPerKey() {
            super("hashmap");
        }
    }

    public static final class HashtableWithSize extends WithSize {
        public HashtableWithSize() {
            super("hashtable");
        }
    }

    public static final class SynchronizedWithSize extends WithSize {
        public SynchronizedWithSize() {
            super("synchronized");
        }
    }

    public static final class ConcurrentPerKey extends PerKey {
        public ConcurrentPerKey() {
            super("concurrent");
        }
    }

    public static final class ConcurrentWithSize extends WithSize {
        public ConcurrentWithSize() {
            super("concurrent");
        }
    }

    public static final class SkipListPerKey extends PerKey {
        public SkipListPerKey() {
            super("skiplist");
        }
    }

    public static final class SkipListWithSize extends WithSize {
        public SkipListWithSize() {
            super("skiplist");
        }
    }

    public static final class ReadWriteLockWithSize extends WithSize {
        public ReadWriteLockWithSize() {
            super("rwlock");
        }
    }

    public static final class StripedPerKey extends PerKey {
        public StripedPerKey() {
            super("striped");
        }
    }
}
