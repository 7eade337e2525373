package dev.ingestor;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packages are the stages of routes/, and each names the packages it may use (Spring Modulith's allowed
 * dependencies are the model). They are listed bottom first, and a package may use only packages listed before it,
 * so the flow only goes down and no two packages import each other (docs/design.md, Layout). A new package must be
 * given its place and its allowed dependencies here, and a package-info.java saying what it owns.
 */
class PackageStructureTest {

    private static final String BASE = "dev.ingestor.";

    /** Bottom first: each package and the packages it may use, every one of them listed earlier. */
    static final Map<String, Set<String>> ALLOWED = allowed();

    private static Map<String, Set<String>> allowed() {
        Map<String, Set<String>> allowed = new LinkedHashMap<>();
        // typed ingestor.* properties and the settings every stage reads
        allowed.put("config", Set.of());
        // supplier text made safe before it reaches a log line or a stored reason
        allowed.put("logging", Set.of());
        // transient or final: the one classifier, the redelivery policies, the transaction policy
        allowed.put("failure", Set.of("config"));
        // the counters every stage adds to
        allowed.put("metrics", Set.of());
        // stages woken by PostgreSQL notifications: the listener, the signals, the routes' scheduler
        allowed.put("wakeup", Set.of("config"));
        // embedded PostgreSQL and Kafka for the default run
        allowed.put("embedded", Set.of("config"));
        // the outbox writer and the relay to Kafka, dead letters recorded
        allowed.put("outbox", Set.of("config", "logging", "metrics", "wakeup"));
        // webhook notices: queued with what they tell, delivered signed
        allowed.put("notification", Set.of("config", "logging", "metrics", "outbox"));
        // import jobs, their lifecycle, claims and the dead-letter channel's end
        allowed.put("job", Set.of("config", "failure", "metrics", "notification", "outbox", "wakeup"));
        // content keys, the raw store, the idempotent repository, the job a new key opens
        allowed.put("intake", Set.of("config", "job", "metrics", "notification"));
        // record readers and rules, quarantine
        allowed.put("validation", Set.of("config", "failure", "intake", "job", "logging", "metrics"));
        // the item applier
        allowed.put("processing", Set.of("config", "job", "logging", "metrics", "outbox", "validation"));
        // what every HTTP route shares: keys, problems, bodies, paging, filters
        allowed.put("web", Set.of("config", "failure", "intake", "job", "logging", "metrics"));
        // the read API: job views, the job list, item history
        allowed.put("api", Set.of("job", "logging", "outbox", "validation", "web"));
        // file drop and SFTP: what a file source needs before intake
        allowed.put("source.file", Set.of("config", "intake", "logging", "metrics", "wakeup"));
        // HTTP push: files, and item batches with request-level idempotency
        allowed.put("source.http", Set.of("api", "config", "intake", "job", "logging", "metrics", "processing",
                "validation", "web"));
        // the HTTP front door
        allowed.put("security", Set.of("config", "logging", "web"));
        // admin API and page, housekeeping, gauges, health
        allowed.put("operations", Set.of("api", "config", "embedded", "intake", "job", "notification", "outbox",
                "source.file", "source.http", "validation", "web"));
        return allowed;
    }

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.ingestor");
    }

    @Test
    void noPackageImportsOneThatImportsItBack() {
        slices().matching("dev.ingestor.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void eachPackageUsesOnlyThePackagesItNames() {
        for (Map.Entry<String, Set<String>> p : ALLOWED.entrySet()) {
            List<String> reachable = new ArrayList<>();
            reachable.add(BASE + p.getKey());
            p.getValue().forEach(d -> reachable.add(BASE + d));
            classes().that().resideInAPackage(BASE + p.getKey())
                    .should().onlyDependOnClassesThat(
                            not(resideInAnyPackage("dev.ingestor.."))
                                    .or(resideInAnyPackage(reachable.toArray(String[]::new))))
                    .because(p.getKey() + " may use only "
                            + (p.getValue().isEmpty() ? "no other package" : new TreeSet<>(p.getValue())))
                    .check(classes);
        }
    }

    @Test
    void theAllowedDependenciesGoOnlyDownAndAreAllUsed() {
        List<String> below = new ArrayList<>();
        Map<String, Set<String>> used = usedDependencies();
        for (Map.Entry<String, Set<String>> p : ALLOWED.entrySet()) {
            assertThat(below).as("the packages %s may use, each listed before it", p.getKey())
                    .containsAll(p.getValue());
            assertThat(used.getOrDefault(p.getKey(), Set.of()))
                    .as("%s names only packages it uses: a stale allowance would let the next change climb", p.getKey())
                    .containsAll(p.getValue());
            below.add(p.getKey());
        }
    }

    @Test
    void everyPackageHasItsPlaceAndSaysWhatItOwns() {
        Set<String> packages = new TreeSet<>();
        for (JavaClass c : classes) {
            String name = c.getPackageName();
            if (name.startsWith(BASE)) {
                packages.add(name.substring(BASE.length()));
            }
        }
        assertThat(packages).as("packages of src/main/java, each placed in ALLOWED")
                .isEqualTo(new TreeSet<>(ALLOWED.keySet()));
        for (String p : packages) {
            assertThat(Files.exists(Path.of("src/main/java/dev/ingestor", p.replace('.', '/'), "package-info.java")))
                    .as("package-info.java of dev.ingestor." + p).isTrue();
        }
    }

    private static Map<String, Set<String>> usedDependencies() {
        Map<String, Set<String>> used = new TreeMap<>();
        for (JavaClass c : classes) {
            if (!c.getPackageName().startsWith(BASE)) {
                continue;
            }
            String from = c.getPackageName().substring(BASE.length());
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String to = d.getTargetClass().getPackageName();
                if (to.startsWith(BASE) && !to.equals(c.getPackageName())) {
                    used.computeIfAbsent(from, k -> new TreeSet<>()).add(to.substring(BASE.length()));
                }
            }
        }
        // a compile-time constant is inlined and leaves no trace in the class file: read the imports too
        Path sources = Path.of("src/main/java");
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String from = sources.relativize(file.getParent()).toString().replace('/', '.');
                if (!from.startsWith(BASE)) {
                    continue;
                }
                for (String line : Files.readAllLines(file)) {
                    Matcher m = IMPORT.matcher(line);
                    if (m.matches() && !m.group(1).equals(from)) {
                        used.computeIfAbsent(from.substring(BASE.length()), k -> new TreeSet<>())
                                .add(m.group(1).substring(BASE.length()));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return used;
    }

    private static final Pattern IMPORT = Pattern.compile("import (?:static )?(dev\\.ingestor\\.[a-z.]+?)\\.[A-Z].*;");
}
