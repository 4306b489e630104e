package dbf0;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs a program's main class in a child JVM with the test class path, and kills it when it
 * overruns. The HashMap races run this way: a race can leave a thread spinning forever in a
 * corrupted bin, and no thread can be stopped from outside, but a process can.
 */
public final class ChildJvm {

    public record Result(int exitCode, String out, String err) {}

    private ChildJvm() {}

    public static Result run(Class<?> mainClass, Duration timeout, String... args)
            throws IOException, InterruptedException {
        return run(List.of(), mainClass, timeout, args);
    }

    /** As {@link #run(Class, Duration, String...)}, with JVM options such as {@code -Xmx64m}. */
    public static Result run(
            List<String> jvmOptions, Class<?> mainClass, Duration timeout, String... args)
            throws IOException, InterruptedException {
        List<String> command =
                new ArrayList<>(
                        List.of(
                                Path.of(System.getProperty("java.home"), "bin", "java")
                                        .toString()));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass.getName()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).start();
        CompletableFuture<String> out =
                CompletableFuture.supplyAsync(() -> read(process.getInputStream()));
        CompletableFuture<String> err =
                CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError(
                        mainClass.getSimpleName() + " did not finish within " + timeout);
            }
            return new Result(process.exitValue(), out.join(), err.join());
        } finally {
            process.destroyForcibly();
        }
    }

    private static String read(java.io.InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(
                    "reading the child's output",
                    e); // not "": a lost output must not pass for an empty one
        }
    }
}
