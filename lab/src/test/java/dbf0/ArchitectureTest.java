package dbf0;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The layers, stated once: {@link #LAYERS} is the table that both the import rule below and the
 * README's diagram are checked against, so the code, the diagram and docs/architecture.md cannot
 * drift apart unnoticed.
 *
 * <p>A layer may import any layer of a lower level, never one of its own level (siblings) or a
 * higher one; {@link #SIBLINGS_ALLOWED} lists the one exception. Run alone: {@code ./mvnw test
 * -Dtest=ArchitectureTest}.
 */
@AnalyzeClasses(
        packages = "dbf0",
        importOptions = {
            ImportOption.DoNotIncludeTests.class,
            ArchitectureTest.NotTheLibrarysTestJar.class
        })
class ArchitectureTest {

    /** The library's test helpers reach the lab's tests as a jar (dbf0-VERSION-tests.jar). */
    static final class NotTheLibrarysTestJar implements ImportOption {
        @Override
        public boolean includes(Location location) {
            return !location.contains("-tests.jar");
        }
    }

    /** A layer: its level (1 is the bottom), its name, the packages (and their subpackages). */
    record Layer(int level, String name, List<String> packages) {
        Layer(int level, String name, String... packages) {
            this(level, name, List.of(packages));
        }

        boolean holds(String pkg) {
            return packages.stream()
                    .anyMatch(root -> pkg.equals(root) || pkg.startsWith(root + "."));
        }
    }

    /** Bottom to top. Packages are relative to {@code dbf0}. */
    static final List<Layer> LAYERS =
            List.of(
                    new Layer(1, "common", "common"),
                    new Layer(1, "io", "base.io"),
                    new Layer(2, "storage", "kv.storage"),
                    new Layer(2, "protocol", "kv.protocol"),
                    new Layer(2, "cluster", "kv.cluster"),
                    new Layer(3, "server", "kv.server", "base.server"),
                    new Layer(3, "client", "kv.client", "base.client"),
                    new Layer(4, "workload", "kv.workload"),
                    new Layer(4, "check", "kv.check"),
                    new Layer(4, "replication", "kv.replication"),
                    new Layer(5, "programs", "kv.bench", "kv.race", "kv.nemesis"),
                    new Layer(6, "cli", "cli"));

    /** Same-level imports that are allowed: the byte buffers sit on the common utilities. */
    static final Map<String, Set<String>> SIBLINGS_ALLOWED = Map.of("io", Set.of("common"));

    private static LayeredArchitecture layers() {
        LayeredArchitecture architecture =
                layeredArchitecture()
                        .consideringOnlyDependenciesInLayers()
                        .withOptionalLayers(true);
        for (Layer layer : LAYERS) {
            String[] definedBy =
                    layer.packages().stream().map(p -> "dbf0." + p + "..").toArray(String[]::new);
            architecture = architecture.layer(layer.name()).definedBy(definedBy);
        }
        for (Layer layer : LAYERS) {
            String[] below = mayAccess(layer).toArray(String[]::new);
            architecture =
                    below.length == 0
                            ? architecture.whereLayer(layer.name()).mayNotAccessAnyLayer()
                            : architecture.whereLayer(layer.name()).mayOnlyAccessLayers(below);
        }
        return architecture.ensureAllClassesAreContainedInArchitecture();
    }

    static List<String> mayAccess(Layer layer) {
        Set<String> siblings = SIBLINGS_ALLOWED.getOrDefault(layer.name(), Set.of());
        return LAYERS.stream()
                .filter(l -> l.level() < layer.level() || siblings.contains(l.name()))
                .map(Layer::name)
                .toList();
    }

    @ArchTest static final ArchRule layersPointDown = layers();

    @ArchTest
    static final ArchRule packagesFormNoCycles =
            slices().matching("dbf0.(**)").should().beFreeOfCycles();

    /**
     * Storage keeps files, so it may use {@code java.nio.channels.FileChannel} (the WAL does); what
     * it must not touch is the network. Hence the socket and selector classes by name rather than
     * the whole {@code java.nio.channels} package.
     */
    @ArchTest
    static final ArchRule storageKnowsNothingOfNetworking =
            noClasses()
                    .that()
                    .resideInAPackage("dbf0.kv.storage..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage("java.net..")
                    .orShould()
                    .dependOnClassesThat()
                    .haveFullyQualifiedName("java.nio.channels.SocketChannel")
                    .orShould()
                    .dependOnClassesThat()
                    .haveFullyQualifiedName("java.nio.channels.ServerSocketChannel")
                    .orShould()
                    .dependOnClassesThat()
                    .haveFullyQualifiedName("java.nio.channels.DatagramChannel")
                    .orShould()
                    .dependOnClassesThat()
                    .haveFullyQualifiedName("java.nio.channels.Selector")
                    .orShould()
                    .dependOnClassesThat()
                    .haveFullyQualifiedName("java.nio.channels.SelectionKey")
                    .orShould()
                    .dependOnClassesThat()
                    .haveFullyQualifiedName("java.nio.channels.NetworkChannel");

    @ArchTest
    static final ArchRule protocolsArePureCodecs =
            noClasses()
                    .that()
                    .resideInAPackage("dbf0.kv.protocol..")
                    .should()
                    .dependOnClassesThat()
                    .resideInAnyPackage("java.net..", "java.nio.channels..")
                    .because(
                            "a codec turns bytes into requests and back; sockets belong to the"
                                    + " sides");

    // ---- README.md's diagram: every package is in it, and it says what LAYERS says ----

    /** A diagram line: {@code 3 server (kv.server, base.server) what it holds}. */
    private static final Pattern DIAGRAM_LINE =
            Pattern.compile("^\\s*([1-9])\\s+([a-z]+)\\s+\\(([a-z., ]+)\\)", Pattern.MULTILINE);

    static List<Layer> readmeDiagram() throws IOException {
        String readme = Files.readString(RepositoryFiles.path("README.md"));
        int section = readme.indexOf("\n## The layers");
        assertThat(section).as("README.md has a section \"## The layers\"").isPositive();
        int open = readme.indexOf("```", section);
        int close = readme.indexOf("```", open + 3);
        assertThat(open).as("the layers section opens with a ``` diagram").isPositive();
        Matcher line = DIAGRAM_LINE.matcher(readme.substring(open, close));
        List<Layer> diagram = new ArrayList<>();
        while (line.find()) {
            List<String> packages =
                    Arrays.stream(line.group(3).split(",")).map(String::strip).toList();
            diagram.add(new Layer(Integer.parseInt(line.group(1)), line.group(2), packages));
        }
        assertThat(diagram).as("layer lines in README.md's diagram").isNotEmpty();
        return diagram;
    }

    /** The modules whose main sources the diagram covers: the library, replication, the lab. */
    static final List<String> MODULES = List.of("library", "replication", "lab");

    /** Every package of the modules' main sources that holds a class, relative to dbf0. */
    static Set<String> mainPackages() throws IOException {
        Set<String> packages = new TreeSet<>();
        for (String module : MODULES) {
            Path root = RepositoryFiles.path(module + "/src/main/java/dbf0");
            try (Stream<Path> files = Files.walk(root)) {
                files.filter(f -> f.toString().endsWith(".java"))
                        .filter(f -> !f.getFileName().toString().equals("package-info.java"))
                        .map(f -> root.relativize(f.getParent()).toString().replace('/', '.'))
                        .forEach(packages::add);
            }
        }
        return packages;
    }

    @Test
    void everyMainPackageIsInTheReadmeDiagram() throws IOException {
        Set<String> listed = new TreeSet<>();
        readmeDiagram().forEach(layer -> listed.addAll(layer.packages()));
        assertThat(mainPackages())
                .as("main packages (each must be named in README.md's layer diagram)")
                .isNotEmpty()
                .allSatisfy(pkg -> assertThat(listed).as("README diagram").contains(pkg));
    }

    @Test
    void theReadmeDiagramSaysWhatTheTestEnforces() throws IOException {
        List<Layer> diagram = readmeDiagram();
        assertThat(diagram.stream().map(Layer::name).toList())
                .as("the diagram's layers are LAYERS'")
                .containsExactlyInAnyOrderElementsOf(LAYERS.stream().map(Layer::name).toList());
        assertThat(diagram)
                .as("the diagram is drawn top to bottom")
                .isSortedAccordingTo((a, b) -> Integer.compare(b.level(), a.level()));
        for (Layer drawn : diagram) {
            Layer enforced =
                    LAYERS.stream()
                            .filter(l -> l.name().equals(drawn.name()))
                            .findFirst()
                            .orElseThrow();
            assertThat(drawn.level()).as("level of %s", drawn.name()).isEqualTo(enforced.level());
            assertThat(drawn.packages())
                    .as("packages the diagram puts in %s", drawn.name())
                    .containsAll(enforced.packages())
                    .allSatisfy(pkg -> assertThat(enforced.holds(pkg)).as(pkg).isTrue());
        }
    }

    @Test
    void theTableIsALadder() {
        assertThat(LAYERS).isSortedAccordingTo((a, b) -> Integer.compare(a.level(), b.level()));
        assertThat(mayAccess(LAYERS.getLast())).hasSize(LAYERS.size() - 1);
        assertThat(mayAccess(LAYERS.getFirst())).isEmpty();
        Layer storage = LAYERS.stream().filter(l -> l.name().equals("storage")).findFirst().get();
        assertThat(mayAccess(storage)).containsExactly("common", "io");
    }
}
