package dbf0;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The repository's own files (README.md, docs/), which tests hold the code to. Maven runs each
 * module's tests in that module's folder (library/, lab/), and an IDE may run them elsewhere in the
 * tree, so the top is found by walking up to the folder that holds the Maven wrapper's {@code
 * .mvn}.
 */
public final class RepositoryFiles {
    private RepositoryFiles() {}

    /** The repository's top folder. */
    public static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        for (Path d = dir; d != null; d = d.getParent()) {
            if (Files.isDirectory(d.resolve(".mvn"))
                    && Files.isRegularFile(d.resolve("README.md"))) {
                return d;
            }
        }
        throw new IllegalStateException("no repository top (a folder with .mvn) above " + dir);
    }

    /** A path relative to the repository's top, such as {@code docs/protocol.md}. */
    public static Path path(String relative) {
        return root().resolve(relative);
    }
}
