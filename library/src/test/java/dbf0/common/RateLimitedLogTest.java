package dbf0.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/** A flood of warnings logs about perSecond lines, and the next line says how many it dropped. */
class RateLimitedLogTest {

    /** The warn lines a logger was given, each as its format then its arguments. */
    private static Logger recording(List<List<Object>> lines) {
        return (Logger)
                Proxy.newProxyInstance(
                        Logger.class.getClassLoader(),
                        new Class<?>[] {Logger.class},
                        (proxy, method, args) -> {
                            if (method.getName().equals("warn")) {
                                List<Object> line = new ArrayList<>();
                                line.add(args[0]);
                                for (int i = 1; i < args.length; i++) {
                                    line.addAll(
                                            args[i] instanceof Object[] a
                                                    ? Arrays.asList(a)
                                                    : List.of(args[i]));
                                }
                                lines.add(line);
                            }
                            return method.getReturnType() == boolean.class ? Boolean.TRUE : null;
                        });
    }

    @Test
    void aBurstLogsAboutPerSecondLinesThenCountsWhatItDropped() throws InterruptedException {
        List<List<Object>> lines = new ArrayList<>();
        RateLimitedLog log = new RateLimitedLog(recording(lines), 5);
        Thread.sleep(1100); // a quiet second: the full allowance is saved up
        for (int i = 0; i < 100; i++) {
            log.warn("bad client {}", i);
        }
        int logged = lines.size();
        // five saved up plus the one due now, and a few more if this thread was descheduled
        assertThat(logged).isBetween(5, 10);
        assertThat(lines.get(0)).containsExactly("bad client {}", 0);

        Thread.sleep(1100);
        lines.clear();
        log.warn("bad client {}", 100);
        assertThat(lines)
                .containsExactly(
                        List.of("({} similar lines suppressed)", (long) (100 - logged)),
                        List.of("bad client {}", 100));
    }

    @Test
    void refusesAZeroRate() {
        assertThatThrownBy(() -> new RateLimitedLog(recording(new ArrayList<>()), 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
