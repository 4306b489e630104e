package dbf0;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The layers of README.md's diagram, enforced: every package's imports point down, so a change
 * that makes a lower layer reach up fails here instead of slowly tangling the code.
 *
 * <pre>
 *   programs   dbf0.cli  →  dbf0.kv.bench, dbf0.kv.race, dbf0.kv.check   (+ dbf0.kv.workload)
 *   server     dbf0.kv.server, dbf0.base.server       client   dbf0.kv.client, dbf0.base.client
 *   protocol   dbf0.kv.protocol
 *   storage    dbf0.kv.storage, dbf0.kv.storage.wal (files, never sockets)
 *   common     dbf0.common, dbf0.base.io (the byte buffers both sides use)
 * </pre>
 *
 * Run alone: {@code ./mvnw test -Dtest=ArchitectureTest}.
 */
@AnalyzeClasses(packages = "dbf0", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  @ArchTest
  static final ArchRule layersPointDown = layeredArchitecture().consideringOnlyDependenciesInLayers()
      .layer("common").definedBy("dbf0.common..", "dbf0.base.io..")
      .layer("storage").definedBy("dbf0.kv.storage..")
      .layer("protocol").definedBy("dbf0.kv.protocol..")
      .layer("server").definedBy("dbf0.kv.server..", "dbf0.base.server..")
      .layer("client").definedBy("dbf0.kv.client..", "dbf0.base.client..")
      .layer("workload").definedBy("dbf0.kv.workload..")
      .layer("programs").definedBy("dbf0.kv.bench..", "dbf0.kv.race..", "dbf0.kv.check..")
      .layer("cli").definedBy("dbf0.cli..")
      .whereLayer("cli").mayNotBeAccessedByAnyLayer()
      .whereLayer("programs").mayOnlyBeAccessedByLayers("cli")
      .whereLayer("workload").mayOnlyBeAccessedByLayers("programs", "cli")
      .whereLayer("server").mayOnlyBeAccessedByLayers("programs", "cli")
      .whereLayer("client").mayOnlyBeAccessedByLayers("programs", "cli")
      .whereLayer("protocol").mayOnlyBeAccessedByLayers("server", "client", "programs", "cli")
      .whereLayer("storage").mayOnlyBeAccessedByLayers("server", "programs", "cli");

  @ArchTest
  static final ArchRule programsFormNoCycles = slices().matching("dbf0.(**)").should().beFreeOfCycles();

  /**
   * Storage keeps files, so it may use {@code java.nio.channels.FileChannel} (the write-ahead log
   * does); what it must not touch is the network. Hence the socket and selector classes by name
   * rather than the whole {@code java.nio.channels} package.
   */
  @ArchTest
  static final ArchRule storageKnowsNothingOfNetworking = noClasses().that().resideInAPackage("dbf0.kv.storage..")
      .should().dependOnClassesThat().resideInAnyPackage("java.net..")
      .orShould().dependOnClassesThat().haveFullyQualifiedName("java.nio.channels.SocketChannel")
      .orShould().dependOnClassesThat().haveFullyQualifiedName("java.nio.channels.ServerSocketChannel")
      .orShould().dependOnClassesThat().haveFullyQualifiedName("java.nio.channels.DatagramChannel")
      .orShould().dependOnClassesThat().haveFullyQualifiedName("java.nio.channels.Selector")
      .orShould().dependOnClassesThat().haveFullyQualifiedName("java.nio.channels.SelectionKey")
      .orShould().dependOnClassesThat().haveFullyQualifiedName("java.nio.channels.NetworkChannel");

  @ArchTest
  static final ArchRule protocolsArePureCodecs = noClasses().that().resideInAPackage("dbf0.kv.protocol..")
      .should().dependOnClassesThat().resideInAnyPackage("java.net..", "java.nio.channels..")
      .because("a codec turns bytes into requests and back; sockets belong to the server and client");
}
