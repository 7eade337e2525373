package dev.ingestor.config;

import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.camel.CamelContext;
import org.apache.camel.spring.boot.CamelContextConfiguration;
import org.apache.camel.support.RouteWatcherReloadStrategy;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * The route reload of the {@code suppliers/} folder below the reloaded routes folder. Camel's own reload
 * ({@code camel.main.routes-reload-*}, set by {@link RoutesLocation}) watches one folder; its pattern matches a
 * file's name only, so watching it recursively would load a route file from any folder below it. This adds a
 * second watch, of {@code suppliers/} alone, with the same pattern and the same rule for the other routes. A
 * {@code suppliers/} folder made after the start is read at the next start, as its routes are.
 */
@Component
class SupplierRoutesReload implements CamelContextConfiguration {

    static final String SUPPLIERS = "suppliers";

    private final Environment environment;

    public SupplierRoutesReload(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void beforeApplicationStart(CamelContext camelContext) {
        Path folder = folder();
        if (folder == null) {
            return;
        }
        RouteWatcherReloadStrategy reload = new RouteWatcherReloadStrategy(folder.toString(), false);
        reload.setPattern(environment.getProperty("camel.main.routes-reload-pattern"));
        reload.setRemoveAllRoutes(
                environment.getProperty("camel.main.routes-reload-remove-all-routes", Boolean.class, false));
        try {
            camelContext.addService(reload);
        } catch (Exception e) {
            throw new IllegalStateException("cannot watch " + folder + " for route changes: " + e.getMessage(), e);
        }
    }

    @Override
    public void afterApplicationStart(CamelContext camelContext) {
        // the watch starts with the context
    }

    /** {@code suppliers/} below Camel's reloaded folder, when reload is on, not recursive, and the folder exists. */
    Path folder() {
        String directory = environment.getProperty("camel.main.routes-reload-directory");
        if (!environment.getProperty("camel.main.routes-reload-enabled", Boolean.class, false) || directory == null
                || environment.getProperty("camel.main.routes-reload-directory-recursive", Boolean.class, false)) {
            return null;
        }
        Path suppliers = Path.of(directory).resolve(SUPPLIERS);
        return Files.isDirectory(suppliers) ? suppliers : null;
    }
}
