package dbf0.kv.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The published histories in src/test/resources/histories/ (see its README.md) and their verdicts.
 */
class KnownVerdictsTest {

    private static final Set<Integer> ETCD_LINEARIZABLE = Set.of(2, 5, 7, 18);

    static Stream<Arguments> etcd() {
        return IntStream.range(0, 20)
                .mapToObj(
                        i ->
                                Arguments.of(
                                        String.format("etcd_%03d.log", i),
                                        ETCD_LINEARIZABLE.contains(i)));
    }

    @ParameterizedTest(name = "{0} linearizable = {1}")
    @MethodSource("etcd")
    void etcdLogs(String file, boolean linearizable) throws Exception {
        CheckResult<?, ?> r;
        try (BufferedReader in = resource("etcd/" + file)) {
            r = LinearizabilityChecker.check(EtcdLogFormat.parse(in, file), Duration.ofMinutes(1));
        }
        assertThat(r.verdict())
                .isEqualTo(
                        linearizable
                                ? CheckResult.Verdict.LINEARIZABLE
                                : CheckResult.Verdict.NOT_LINEARIZABLE);
        if (!linearizable) {
            assertThat(r.subHistory()).isNotEmpty();
            assertThat(r.longestPartial().size()).isLessThan(r.subHistory().size());
        }
    }

    @ParameterizedTest(name = "{0} linearizable = {1}")
    @MethodSource("kv")
    void kvHistories(String file, boolean linearizable) throws Exception {
        CheckResult<?, ?> r;
        try (BufferedReader in = resource("kv/" + file)) {
            r = LinearizabilityChecker.check(KvEdnFormat.parse(in, file), Duration.ofMinutes(1));
        }
        assertThat(r.verdict())
                .isEqualTo(
                        linearizable
                                ? CheckResult.Verdict.LINEARIZABLE
                                : CheckResult.Verdict.NOT_LINEARIZABLE);
        assertThat(r.partitions()).isGreaterThan(1);
    }

    static Stream<Arguments> kv() {
        return Stream.of(Arguments.of("c01-ok.txt", true), Arguments.of("c01-bad.txt", false));
    }

    static BufferedReader resource(String path) {
        var s = KnownVerdictsTest.class.getResourceAsStream("/histories/" + path);
        assertThat(s).as(path).isNotNull();
        return new BufferedReader(new InputStreamReader(s, StandardCharsets.UTF_8));
    }
}
