package dev.ingestor.config;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.env.EnvironmentPostProcessor;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Routes are read from {@code ingestor.routes-dir} (default {@code ./routes}) so an engineer edits a route
 * and restarts, without a build. When that folder holds no routes, the copy packaged in the jar is used.
 * Per-supplier hook routes live one level down, in {@code suppliers/}; Camel reads a comma list of patterns. A
 * {@code file:} pattern naming a folder that does not exist fails Camel's start (NoSuchFileException), so the
 * {@code suppliers/} pattern is added only when that folder exists; a missing classpath folder simply matches
 * nothing.
 * An explicit {@code camel.main.routes-include-pattern} always wins.
 */
public class RoutesLocation implements EnvironmentPostProcessor {

    static final String PATTERN = "camel.main.routes-include-pattern";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        if (environment.containsProperty(PATTERN)) {
            return;
        }
        Path dir = Path.of(environment.getProperty("ingestor.routes-dir", "routes")).toAbsolutePath().normalize();
        String pattern;
        if (hasRoutes(dir)) {
            pattern = "file:" + dir + "/*.camel.yaml";
            if (Files.isDirectory(dir.resolve("suppliers"))) {
                pattern += ",file:" + dir + "/suppliers/*.camel.yaml";
            }
        } else {
            pattern = "classpath:routes/*.camel.yaml,classpath:routes/suppliers/*.camel.yaml";
        }
        Map<String, Object> settings = new java.util.HashMap<>();
        settings.put(PATTERN, pattern);
        if (hasRoutes(dir) && Boolean.parseBoolean(environment.getProperty("ingestor.routes-reload", "false"))) {
            // Camel's route reload, watching the routes folder and suppliers/ below it. Only the routes of a changed
            // file are replaced: removing all routes would also remove the ones made from templates in Java (one
            // per supplier and stage), which no file would bring back
            settings.put("camel.main.routes-reload-enabled", "true");
            settings.put("camel.main.routes-reload-directory", dir.toString());
            settings.put("camel.main.routes-reload-directory-recursive", "true");
            settings.put("camel.main.routes-reload-pattern", "*.camel.yaml");
            settings.put("camel.main.routes-reload-remove-all-routes", "false");
        }
        // last: an operator's own camel.main.* settings win
        environment.getPropertySources().addLast(new MapPropertySource("ingestor-routes", settings));
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
