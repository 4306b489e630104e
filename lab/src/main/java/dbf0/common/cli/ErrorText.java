package dbf0.common.cli;

import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/** What a failure says in one line of a program's output, and how an address is written there. */
public final class ErrorText {

    private ErrorText() {}

    /**
     * One line for {@code e}: its message, a file system error as {@code PATH: what went wrong}
     * (Java's own message is the path alone), and the class only where the message would not say
     * what happened (a bug's exception).
     */
    public static String of(Throwable e) {
        if (e instanceof UncheckedIOException unchecked && unchecked.getCause() != null) {
            return of(unchecked.getCause());
        }
        if (e instanceof FileSystemException fs) {
            String file = fs.getFile() == null ? "" : fs.getFile();
            String other = fs.getOtherFile() == null ? "" : " -> " + fs.getOtherFile();
            return file + other + ": " + reason(fs);
        }
        if (e instanceof UnknownHostException) {
            return "unknown host " + e.getMessage(); // Java's message is the name alone
        }
        String message = e.getMessage();
        if (message == null || message.isBlank()) {
            return e.getClass().getSimpleName();
        }
        message = message.strip().replaceAll("\\s*\n\\s*", " ");
        boolean explains =
                e instanceof Cli.Failure
                        || e instanceof java.io.IOException
                        || e instanceof IllegalArgumentException
                        || e instanceof IllegalStateException;
        return explains ? message : e.getClass().getSimpleName() + ": " + message;
    }

    private static String reason(FileSystemException e) {
        if (e.getReason() != null) {
            return e.getReason();
        }
        if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileAlreadyExistsException) {
            return "already exists";
        }
        if (e instanceof NotDirectoryException) {
            return "not a directory";
        }
        if (e instanceof DirectoryNotEmptyException) {
            return "directory not empty";
        }
        return e.getClass().getSimpleName();
    }

    /**
     * {@code 127.0.0.1:9000}, {@code [0:0:0:0:0:0:0:1]:9000} or {@code host:9000}: an address as it
     * is typed, not Java's {@code /127.0.0.1:9000}.
     */
    public static String address(InetSocketAddress address) {
        String host = address.getHostString(); // as given: a name stays a name, no lookup
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort();
    }
}
