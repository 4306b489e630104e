package dbf0.jcstress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

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
 * {@link HashMapLostUpdate} on the {@code concurrent} backend (a {@link
 * java.util.concurrent.ConcurrentHashMap}): two threads each put a different key into a fresh map,
 * and the arbiter, which runs after both, must find both keys and a size of two. Here a lost update
 * is forbidden, so a single one fails the test. size() is only asked once the puts are over; while
 * they run, it may lag (MapBackendsLincheckTest shows that).
 *
 * <pre>{@code
 * ./mvnw -q install -DskipTests && ./mvnw -q -f jcstress/pom.xml package
 * java -jar jcstress/target/jcstress.jar -t dbf0.jcstress.ConcurrentHashMapLostUpdate -m quick
 * }</pre>
 *
 * <p>.ci/run runs it in jcstress's sanity mode and fails on a forbidden outcome.
 */
@JCStressTest
@Outcome(id = "true, true", expect = ACCEPTABLE, desc = "Both entries are there and counted.")
@Outcome(
        id = "true, false",
        expect = FORBIDDEN,
        desc = "Lost update: a key is missing although size() says 2.")
@Outcome(
        id = "false, false",
        expect = FORBIDDEN,
        desc = "Lost update: a key is missing and size() says so.")
@Outcome(
        id = "false, true",
        expect = FORBIDDEN,
        desc = "Lost count: both keys are there, size() misses one.")
@State
public class ConcurrentHashMapLostUpdate {

    private final Map<ByteArrayWrapper, ByteArrayWrapper> map = MapBackends.create("concurrent");

    @Actor
    public void putFirst() {
        map.put(HashMapLostUpdate.KEY_1, HashMapLostUpdate.VALUE);
    }

    @Actor
    public void putSecond() {
        map.put(HashMapLostUpdate.KEY_2, HashMapLostUpdate.VALUE);
    }

    @Arbiter
    public void look(ZZ_Result r) {
        r.r1 = map.size() == 2;
        r.r2 = map.containsKey(HashMapLostUpdate.KEY_1) && map.containsKey(HashMapLostUpdate.KEY_2);
    }
}
