package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.spi.PackageScanResourceResolver;
import org.apache.camel.spi.Resource;
import org.apache.camel.support.PluginHelper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.mock.env.MockEnvironment;

class RoutesLocationTest {

    private static final String PACKAGED = "classpath:routes/*.camel.yaml,classpath:routes/suppliers/*.camel.yaml";

    @TempDir
    Path dir;

    private String patternFor(MockEnvironment environment) {
        new RoutesLocation().postProcessEnvironment(environment, null);
        return environment.getProperty(RoutesLocation.PATTERN);
    }

    @Test
    void routesOnDiskAreReadFromDisk() throws Exception {
        Files.writeString(dir.resolve("intake.camel.yaml"), "- route: {}\n");
        String pattern = patternFor(new MockEnvironment().withProperty("ingestor.routes-dir", dir.toString()));
        Path normal = dir.toAbsolutePath().normalize();
        assertThat(pattern).isEqualTo("file:" + normal + "/*.camel.yaml");
        Files.createDirectories(dir.resolve("suppliers"));
        pattern = patternFor(new MockEnvironment().withProperty("ingestor.routes-dir", dir.toString()));
        assertThat(pattern).isEqualTo("file:" + normal + "/*.camel.yaml,file:" + normal + "/suppliers/*.camel.yaml");
    }

    /**
     * The README's commands run the app and its tests on the checkout's routes/, which a clone made under a umask of
     * 002 leaves group-writable: the build takes those rights away (pom.xml, routes-owner-only), so the app's own
     * check passes on the folder as the build left it.
     */
    @Test
    void theCheckoutsRoutesPassTheCheckAsTheBuildLeavesThem() {
        Path routes = Path.of("routes").toAbsolutePath().normalize();
        String pattern = patternFor(new MockEnvironment().withProperty("ingestor.routes-dir", routes.toString()));
        assertThat(pattern).isEqualTo("file:" + routes + "/*.camel.yaml,file:" + routes + "/suppliers/*.camel.yaml");
    }

    /** A route runs with the app's rights: a folder of routes others may write to fails the start, naming the fix. */
    @Test
    void aRoutesFolderWritableByOthersThanItsOwnerIsRefused() throws Exception {
        Files.writeString(dir.resolve("intake.camel.yaml"), "- route: {}\n");
        Path suppliers = Files.createDirectories(dir.resolve("suppliers"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(suppliers, PosixFilePermissions.fromString("rwxr-xr-x"));
        MockEnvironment ownerOnly = new MockEnvironment().withProperty("ingestor.routes-dir", dir.toString());
        assertThat(patternFor(ownerOnly)).startsWith("file:");

        for (Path folder : List.of(dir, suppliers)) {
            for (String rights : List.of("rwxrwxr-x", "rwxr-xrwx")) {
                Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString(rights));
                MockEnvironment environment = new MockEnvironment().withProperty("ingestor.routes-dir", dir.toString());
                assertThatThrownBy(() -> patternFor(environment)).as("%s with %s", folder, rights)
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining(folder.toAbsolutePath().normalize().toString())
                        .hasMessageContaining("chmod go-w");
            }
            Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    /**
     * A route file others may write to fails the start as its folder would: editing a route runs code as surely as
     * adding one. A link is judged as the file it leads to and the folder holding that (a ConfigMap's files are links
     * into a folder of its own, which passes when only its owner may write).
     */
    @Test
    void aRouteFileWritableByOthersThanItsOwnerIsRefusedAndALinkIsJudgedByWhatItLeadsTo(@TempDir Path elsewhere)
            throws Exception {
        Path route = Files.writeString(dir.resolve("intake.camel.yaml"), "- route: {}\n");
        Path suppliers = Files.createDirectories(dir.resolve("suppliers"));
        Path hook = Files.writeString(suppliers.resolve("SPLITCO.camel.yaml"), "- route: {}\n");
        for (Path folder : List.of(dir, suppliers, elsewhere)) {
            Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        for (Path file : List.of(route, hook)) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-rw-r--"));
            MockEnvironment environment = new MockEnvironment().withProperty("ingestor.routes-dir", dir.toString());
            assertThatThrownBy(() -> patternFor(environment)).as("%s", file)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("the route file " + file.toAbsolutePath().normalize())
                    .hasMessageContaining("chmod go-w");
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        }

        // a link to a file in a folder only its owner may write: read; the same folder writable by its group: refused
        Path target = Files.writeString(elsewhere.resolve("GLOBEX.camel.yaml"), "- route: {}\n");
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-r--r--"));
        Files.createSymbolicLink(suppliers.resolve("GLOBEX.camel.yaml"), target);
        assertThat(patternFor(new MockEnvironment().withProperty("ingestor.routes-dir", dir.toString())))
                .startsWith("file:");
        Files.setPosixFilePermissions(elsewhere, PosixFilePermissions.fromString("rwxrwxr-x"));
        MockEnvironment environment = new MockEnvironment().withProperty("ingestor.routes-dir", dir.toString());
        assertThatThrownBy(() -> patternFor(environment)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("(a link)").hasMessageContaining("chmod go-w " + elsewhere.toRealPath());
        Files.setPosixFilePermissions(elsewhere, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-rw-rw-"));
        MockEnvironment again = new MockEnvironment().withProperty("ingestor.routes-dir", dir.toString());
        assertThatThrownBy(() -> patternFor(again)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("(a link to " + target.toRealPath() + ")");
    }

    @Test
    void withoutRoutesInTheDefaultFolderThePackagedCopyIsUsed() {
        for (Path defaultDir : List.of(dir.resolve("missing"), dir)) {
            MockEnvironment environment = new MockEnvironment();
            new RoutesLocation().choosePattern(environment, defaultDir);
            assertThat(environment.getProperty(RoutesLocation.PATTERN)).isEqualTo(PACKAGED);
        }
    }

    /** A misspelled path, or a volume not mounted: never the packaged routes in place of the operator's. */
    @Test
    void aRoutesFolderSetByTheOperatorThatHoldsNoRoutesFailsTheStart() {
        assertThatThrownBy(() -> patternFor(
                new MockEnvironment().withProperty("ingestor.routes-dir", dir.resolve("missing").toString())))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ingestor.routes-dir=" + dir.resolve("missing"))
                .hasMessageContaining("is not a folder");
        assertThatThrownBy(() -> patternFor(new MockEnvironment().withProperty("ingestor.routes-dir", dir.toString())))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("holds no route files (*.camel.yaml)");
    }

    /** What Camel makes of the pattern: both folders read; a missing folder is no error for a classpath pattern. */
    @Test
    void camelReadsBothFoldersAndToleratesAMissingPackagedSuppliersFolder() throws Exception {
        Files.writeString(dir.resolve("intake.camel.yaml"), "- route: {}\n");
        try (DefaultCamelContext camel = new DefaultCamelContext()) {
            PackageScanResourceResolver resolver = PluginHelper.getPackageScanResourceResolver(camel);
            String pattern = patternFor(new MockEnvironment().withProperty("ingestor.routes-dir", dir.toString()));
            assertThat(names(resolver, pattern)).containsExactly("intake.camel.yaml");
            Files.createDirectories(dir.resolve("suppliers"));
            Files.writeString(dir.resolve("suppliers/ACME.camel.yaml"), "- route: {}\n");
            pattern = patternFor(new MockEnvironment().withProperty("ingestor.routes-dir", dir.toString()));
            assertThat(names(resolver, pattern)).containsExactlyInAnyOrder("intake.camel.yaml", "ACME.camel.yaml");
            assertThat(names(resolver, "classpath:no-such-folder/*.camel.yaml")).isEmpty();
        }
    }

    private static List<String> names(PackageScanResourceResolver resolver, String pattern) throws Exception {
        List<String> names = new ArrayList<>();
        for (String part : pattern.split(",")) {
            for (Resource resource : resolver.findResources(part)) {
                names.add(Path.of(resource.getLocation().replaceFirst("^file:", "")).getFileName().toString());
            }
        }
        return names;
    }

    @Test
    void anExplicitPatternWins() {
        MockEnvironment environment = new MockEnvironment().withProperty(RoutesLocation.PATTERN,
                "classpath:mine/*.yaml");
        assertThat(patternFor(environment)).isEqualTo("classpath:mine/*.yaml");
    }

    /**
     * A reload replaces only the routes of the file that changed, however it was switched on: removing all routes
     * would also remove those made from templates in Java (file drops, stage workers, relays), which no file brings
     * back. An operator's own setting still wins.
     */
    @Test
    void aReloadSwitchedOnWithCamelsOwnPropertyKeepsTheOtherRoutes() {
        MockEnvironment camelsOwn = new MockEnvironment().withProperty("camel.main.routes-reload-enabled", "true");
        patternFor(camelsOwn);
        assertThat(camelsOwn.getProperty("camel.main.routes-reload-remove-all-routes")).isEqualTo("false");
        MockEnvironment ownPattern = new MockEnvironment().withProperty("camel.main.routes-reload-enabled", "true")
                .withProperty(RoutesLocation.PATTERN, "classpath:mine/*.yaml");
        patternFor(ownPattern);
        assertThat(ownPattern.getProperty("camel.main.routes-reload-remove-all-routes"))
                .as("with a pattern of one's own")
                .isEqualTo("false");
        MockEnvironment operators = new MockEnvironment()
                .withProperty("camel.main.routes-reload-remove-all-routes", "true");
        patternFor(operators);
        assertThat(operators.getProperty("camel.main.routes-reload-remove-all-routes")).isEqualTo("true");
    }
}
