package dev.ingestor.config;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Routes are read from {@code ingestor.routes-dir} (default {@code routes}) so an engineer edits a route
 * and restarts, without a build. When the default folder holds no routes, the copy packaged in the jar is used. A
 * folder set by the operator that holds no routes fails the start, naming it: a misspelled path, or a volume not
 * mounted, would otherwise run the packaged routes in place of the operator's, silently.
 * Per-supplier hook routes live one level down, in {@code suppliers/}; Camel reads a comma list of patterns. A
 * {@code file:} pattern naming a folder that does not exist fails Camel's start (NoSuchFileException), so the
 * {@code suppliers/} pattern is added only when that folder exists; a missing classpath folder simply matches
 * nothing.
 * An explicit {@code camel.main.routes-include-pattern} always wins.
 * <p>
 * A route runs with the app's rights (a route file can call any bean and write anywhere the app may), so the
 * folders it is read from, and its route files, must be writable by their owner alone: a routes folder, {@code
 * suppliers/} or a route file in them that its group or everyone may write to fails the start, naming it and the
 * fix. A route file that is a link (a Kubernetes ConfigMap's are) is judged as the file it leads to, with the folder
 * that holds that file; a folder or file on a file system mounted read-only (a ConfigMap's volume) is not judged.
 */
public class RoutesLocation implements EnvironmentPostProcessor {

    static final String PATTERN = "camel.main.routes-include-pattern";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        // a reload, however it is switched on, replaces only the routes of the file that changed: removing all
        // routes would also remove the ones made from templates in Java (one per supplier, stage worker and
        // relay), which no file would bring back. Last: an operator's own setting wins
        environment.getPropertySources().addLast(new MapPropertySource("ingestor-routes-reload",
                Map.of("camel.main.routes-reload-remove-all-routes", "false")));
        if (environment.containsProperty(PATTERN)) {
            return;
        }
        choosePattern(environment, new IngestorProperties().getRoutesDir());
    }

    /** Sets the routes' pattern: from {@code ingestor.routes-dir}, or {@code defaultDir} when it is not set. */
    void choosePattern(ConfigurableEnvironment environment, Path defaultDir) {
        Binder binder = Binder.get(environment);
        IngestorProperties defaults = new IngestorProperties();
        // read as text: bound as a Path, a relative name that is also on the classpath would become that folder
        String configured = environment.getProperty("ingestor.routes-dir");
        Path dir = (configured != null ? Path.of(configured) : defaultDir).toAbsolutePath().normalize();
        if (configured != null && !hasRoutes(dir)) {
            throw new IllegalStateException("ingestor.routes-dir=" + configured + " names " + dir + ", which "
                    + (Files.isDirectory(dir) ? "holds no route files (*.camel.yaml)" : "is not a folder")
                    + ": the app would run the routes packaged in its jar in place of yours. Fix the path, or unset"
                    + " ingestor.routes-dir to run the packaged routes");
        }
        String pattern;
        if (hasRoutes(dir)) {
            requireOwnerOnlyWritable(dir);
            requireOwnerOnlyWritable(dir.resolve("suppliers"));
            requireRouteFilesOwnerOnlyWritable(dir);
            requireRouteFilesOwnerOnlyWritable(dir.resolve("suppliers"));
            pattern = "file:" + dir + "/*.camel.yaml";
            if (Files.isDirectory(dir.resolve("suppliers"))) {
                pattern += ",file:" + dir + "/suppliers/*.camel.yaml";
            }
        } else {
            pattern = "classpath:routes/*.camel.yaml,classpath:routes/suppliers/*.camel.yaml";
        }
        Map<String, Object> settings = new java.util.HashMap<>();
        settings.put(PATTERN, pattern);
        if (hasRoutes(dir) && binder.bind("ingestor.routes-reload", Boolean.class).orElse(defaults.isRoutesReload())) {
            // Camel's route reload, watching the routes folder itself: its pattern matches a file's name only, so a
            // recursive watch would load a route file from any folder below (a backup, a scratch folder).
            // suppliers/ gets a watch of its own (SupplierRoutesReload); only a changed file's routes are replaced
            // (above)
            settings.put("camel.main.routes-reload-enabled", "true");
            settings.put("camel.main.routes-reload-directory", dir.toString());
            settings.put("camel.main.routes-reload-directory-recursive", "false");
            settings.put("camel.main.routes-reload-pattern", "*.camel.yaml");
        }
        // last: an operator's own camel.main.* settings win
        environment.getPropertySources().addLast(new MapPropertySource("ingestor-routes", settings));
    }

    private static final Set<PosixFilePermission> WRITABLE_BY_OTHERS = EnumSet.of(
            PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE);

    /**
     * Fails when {@code folder} exists and its group or everyone may write to it (on file systems with POSIX rights).
     */
    static void requireOwnerOnlyWritable(Path folder) {
        if (Files.isDirectory(folder)) {
            requireOwnerOnlyWritable(folder, "the routes folder " + folder, "add one there");
        }
    }

    /**
     * Fails when a route file in {@code folder} may be written by its group or everyone; a link is judged as the file
     * it leads to, and the folder that holds that file as a routes folder.
     */
    static void requireRouteFilesOwnerOnlyWritable(Path folder) {
        if (!Files.isDirectory(folder)) {
            return;
        }
        try (DirectoryStream<Path> routes = Files.newDirectoryStream(folder, "*.camel.yaml")) {
            Path realFolder = folder.toRealPath();
            for (Path route : routes) {
                Path real = route.toRealPath();
                requireOwnerOnlyWritable(real, "the route file " + route
                        + (real.equals(route.toAbsolutePath().normalize()) ? "" : " (a link to " + real + ")"),
                        "change it");
                if (!realFolder.equals(real.getParent())) {
                    requireOwnerOnlyWritable(real.getParent(), "the folder " + real.getParent() + " of the route file "
                            + route + " (a link)", "replace it");
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the route files in " + folder + ": " + e.getMessage(), e);
        }
    }

    private static void requireOwnerOnlyWritable(Path path, String what, String how) {
        PosixFileAttributeView posix = Files.getFileAttributeView(path, PosixFileAttributeView.class);
        if (posix == null || onReadOnlyStore(path)) {
            return;
        }
        Set<PosixFilePermission> permissions;
        try {
            permissions = posix.readAttributes().permissions();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the rights of " + what + ": " + e.getMessage(), e);
        }
        if (permissions.stream().anyMatch(WRITABLE_BY_OTHERS::contains)) {
            throw new IllegalStateException(what + " may be written by others than its owner ("
                    + java.nio.file.attribute.PosixFilePermissions.toString(permissions) + "): a route runs with the"
                    + " app's rights, so whoever can " + how + " could run anything the app can. Fix: chmod go-w "
                    + path + " (ingestor.routes-dir)");
        }
    }

    /**
     * Whether {@code path} lies on a file system mounted read-only, where no one may write whatever its rights say: a
     * Kubernetes ConfigMap's volume, whose folder kubelet makes writable by all (0777) and mounts read-only.
     */
    private static boolean onReadOnlyStore(Path path) {
        try {
            return Files.getFileStore(path).isReadOnly();
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean hasRoutes(Path dir) {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        try (DirectoryStream<Path> routes = Files.newDirectoryStream(dir, "*.camel.yaml")) {
            return routes.iterator().hasNext();
        } catch (IOException e) {
            return false;
        }
    }
}
