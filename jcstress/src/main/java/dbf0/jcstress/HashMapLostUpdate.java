package dbf0.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;

import dbf0.common.ByteArrayWrapper;
import dbf0.kv.storage.MapBackends;
import java.util.Map;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * Two threads each put a different key into one fresh {@code hashmap} backend (a {@link
 * java.util.HashMap}); once both are done, the arbiter asks whether the map counts two entries and
 * whether it finds both keys. Anything but "true, true" is a lost update, and jcstress shows how
 * often each happens. HashMap is not meant for this, so those outcomes are interesting, not
 * failures: the test documents the race rather than guarding against it. Most come from the first
 * put's lazy table allocation: both threads see no table, each allocates one, and the entry put
 * into the table that loses is gone.
 *
 * <pre>{@code
 * ./mvnw -q install -DskipTests && ./mvnw -q -f jcstress/pom.xml package
 * java -jar jcstress/target/jcstress.jar -t dbf0.jcstress.HashMapLostUpdate -m quick
 * }</pre>
 *
 * <p>{@link ConcurrentHashMapLostUpdate} is the same test on the {@code concurrent} backend, where
 * these outcomes are forbidden.
 */
@JCStressTest
@Outcome(id = "true, true", expect = ACCEPTABLE, desc = "Both entries are there and counted.")
@Outcome(
        id = "true, false",
        expect = ACCEPTABLE_INTERESTING,
        desc = "Lost update: a key is missing although size() says 2.")
@Outcome(
        id = "false, false",
        expect = ACCEPTABLE_INTERESTING,
        desc = "Lost update: a key is missing and size() says so.")
@Outcome(
        id = "false, true",
        expect = ACCEPTABLE_INTERESTING,
        desc = "Lost count: both keys are there, size() misses one.")
@State
public class HashMapLostUpdate {

    static final ByteArrayWrapper KEY_1 = ByteArrayWrapper.of(1);
    static final ByteArrayWrapper KEY_2 = ByteArrayWrapper.of(2);
    static final ByteArrayWrapper VALUE = ByteArrayWrapper.of(0);

    private final Map<ByteArrayWrapper, ByteArrayWrapper> map = MapBackends.create("hashmap");

    @Actor
    public void putFirst() {
        map.put(KEY_1, VALUE);
    }

    @Actor
    public void putSecond() {
        map.put(KEY_2, VALUE);
    }

    @Arbiter
    public void look(ZZ_Result r) {
        r.r1 = map.size() == 2;
        r.r2 = map.containsKey(KEY_1) && map.containsKey(KEY_2);
    }
}
