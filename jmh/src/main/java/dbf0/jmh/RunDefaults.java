package dbf0.jmh;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The settings every benchmark here shares, in one place (JMH reads these annotations from a
 * benchmark's superclasses): throughput in operations per second, and a run short enough for a
 * laptop, one fork with 3 warm-up iterations of 1 s and 5 measured ones of 2 s. The command line
 * overrides any of them ({@code -f}, {@code -wi}, {@code -w}, {@code -i}, {@code -r}). The forked
 * JVM gets a fixed 1 GiB heap, so that heap resizing does not show up in the figures.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public abstract class RunDefaults {}
