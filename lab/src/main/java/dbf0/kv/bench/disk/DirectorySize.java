package dbf0.kv.bench.disk;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.stream.Stream;

/** The 2020 benchmark's fileSize: bytes of every regular file under a directory. */
final class DirectorySize {

    private DirectorySize() {}

    /**
     * Bytes of every regular file under {@code dir}. A file that a compaction removes while it is
     * counted is skipped: the figure is a snapshot of a directory that changes under it.
     */
    static long of(Path dir) throws IOException {
        for (int attempt = 1; ; attempt++) {
            try (Stream<Path> files = Files.walk(dir)) {
                return files.mapToLong(DirectorySize::sizeOrZero).sum();
            } catch (UncheckedIOException e) {
                // a directory vanished mid-walk: count again, a few times
                if (!(e.getCause() instanceof NoSuchFileException) || attempt == 3) {
                    throw e.getCause();
                }
            }
        }
    }

    private static long sizeOrZero(Path file) {
        try {
            return Files.isRegularFile(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return 0; // removed between listing and sizing
        }
    }
}
