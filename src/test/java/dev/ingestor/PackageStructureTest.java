package dev.ingestor;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packages are the stages of routes/, and they stand in one order: a package may use the packages below it,
 * never one above it, so no two packages import each other (docs/design.md, Layout). A new package must be given
 * its place here and a package-info.java saying what it owns.
 */
class PackageStructureTest {

    /** Bottom first. Each package may depend only on packages earlier in this list. */
    static final List<String> ORDER = List.of(
            "config",      // typed ingestor.* properties and the settings every stage reads
            "logging",     // supplier text made safe before it reaches a log line or a stored reason
            "failure",     // transient or final: the one classifier, and the redelivery policies
            "embedded",    // embedded PostgreSQL and Kafka for the default run
            "intake",      // content keys, the raw store, the idempotent repository
            "metrics",     // the counters every stage adds to
            "outbox",      // the outbox writer and the relay to Kafka
            "job",         // import jobs, their lifecycle, claims and dead letters
            "validation",  // record readers and rules, quarantine
            "processing",  // the item applier
            "web",         // what every HTTP route shares: keys, problems, bodies, paging, the job views
            "source",      // file drop, SFTP and HTTP push: what a source needs before intake
            "security",    // the HTTP front door
            "operations"); // admin API and page, housekeeping, gauges, health

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.ingestor");
    }

    @Test
    void noPackageImportsOneThatImportsItBack() {
        slices().matching("dev.ingestor.(*)..").should().beFreeOfCycles().check(classes);
    }

    @Test
    void eachPackageUsesOnlyThePackagesBelowIt() {
        for (int i = 0; i < ORDER.size(); i++) {
            String[] above = ORDER.subList(i + 1, ORDER.size()).stream().map(p -> "dev.ingestor." + p + "..")
                    .toArray(String[]::new);
            if (above.length == 0) {
                continue;
            }
            noClasses().that().resideInAPackage("dev.ingestor." + ORDER.get(i) + "..")
                    .should().dependOnClassesThat().resideInAnyPackage(above)
                    .because(ORDER.get(i) + " sits below " + String.join(", ", ORDER.subList(i + 1, ORDER.size())))
                    .check(classes);
        }
    }

    @Test
    void everyPackageHasItsPlaceAndSaysWhatItOwns() {
        Set<String> packages = new TreeSet<>();
        for (JavaClass c : classes) {
            String name = c.getPackageName();
            if (name.startsWith("dev.ingestor.")) {
                packages.add(name.substring("dev.ingestor.".length()));
            }
        }
        assertThat(packages).as("packages of src/main/java, each placed in ORDER").isEqualTo(new TreeSet<>(ORDER));
        for (String p : packages) {
            assertThat(Files.exists(Path.of("src/main/java/dev/ingestor", p.replace('.', '/'), "package-info.java")))
                    .as("package-info.java of dev.ingestor." + p).isTrue();
        }
    }
}
