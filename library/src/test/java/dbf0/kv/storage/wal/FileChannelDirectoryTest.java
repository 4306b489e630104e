package dbf0.kv.storage.wal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real directory's files: an interrupted caller costs neither it nor anyone else the log.
 *
 * <p>Under {@code interval} and {@code never} the sessions' threads write the log themselves, and a
 * FileChannel closes itself for every thread when one of its callers is interrupted.
 */
class FileChannelDirectoryTest {

    private static ByteBuffer ascii(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void aCallerWithItsInterruptFlagSetWritesAndKeepsTheFlag(@TempDir Path dir) throws IOException {
        try (FileChannelDirectory disk = new FileChannelDirectory(dir);
                WalFile log = disk.open("log")) {
            log.write(ascii("abc"), 0);
            // the channel closes on the next call, then is opened again
            Thread.currentThread().interrupt();
            try {
                log.write(ascii("def"), 3);
                assertThat(Thread.currentThread().isInterrupted())
                        .as("the caller still sees its interrupt")
                        .isTrue();
            } finally {
                Thread.interrupted();
            }
            // Another call, as another thread would make it, finds a working file.
            log.write(ascii("ghi"), 6);
            log.force();
            assertThat(log.size()).isEqualTo(9);
            ByteBuffer back = ByteBuffer.allocate(9);
            assertThat(log.read(back, 0)).isEqualTo(9);
            assertThat(new String(back.array(), StandardCharsets.US_ASCII)).isEqualTo("abcdefghi");
        }
        assertThat(Files.readString(dir.resolve("log"), StandardCharsets.US_ASCII))
                .isEqualTo("abcdefghi");
    }

    @Test
    void anInterruptedReaderAndTruncateRepeatFromTheSamePlace(@TempDir Path dir)
            throws IOException {
        try (FileChannelDirectory disk = new FileChannelDirectory(dir);
                WalFile log = disk.open("log")) {
            log.write(ascii("0123456789"), 0);
            ByteBuffer into = ByteBuffer.allocate(6).put((byte) '>');
            Thread.currentThread().interrupt();
            try {
                assertThat(log.read(into, 2)).isEqualTo(5);
                log.truncate(4);
            } finally {
                Thread.interrupted();
            }
            assertThat(new String(into.array(), StandardCharsets.US_ASCII)).isEqualTo(">23456");
            assertThat(log.size()).isEqualTo(4);
        }
    }

    @Test
    void aClosedFileStaysClosed(@TempDir Path dir) throws IOException {
        try (FileChannelDirectory disk = new FileChannelDirectory(dir)) {
            WalFile log = disk.open("log");
            log.close();
            assertThatThrownBy(() -> log.write(ascii("x"), 0))
                    .isInstanceOf(ClosedChannelException.class);
            assertThatThrownBy(log::force).isInstanceOf(ClosedChannelException.class);
        }
    }

    @Test
    void itCreatesTheDirectoryButNotAMissingParent(@TempDir Path tmp) throws IOException {
        Path made = tmp.resolve("wal");
        new FileChannelDirectory(made).close();
        assertThat(made).isDirectory();

        Path typo = tmp.resolve("nope").resolve("deeper").resolve("wal");
        assertThatThrownBy(() -> new FileChannelDirectory(typo))
                .isInstanceOf(java.nio.file.NoSuchFileException.class)
                .hasMessage(typo + ": its parent " + typo.getParent() + " does not exist");
        assertThat(tmp.resolve("nope")).doesNotExist();
    }

    @Test
    void aFileInPlaceOfTheDirectoryIsRefusedByName(@TempDir Path tmp) throws IOException {
        Path file = Files.writeString(tmp.resolve("data"), "not a directory");
        assertThatThrownBy(() -> new FileChannelDirectory(file))
                .isInstanceOf(java.nio.file.FileSystemException.class)
                .hasMessage(file + ": is a file, not a directory");
        assertThat(Files.readString(file)).isEqualTo("not a directory");
    }
}
