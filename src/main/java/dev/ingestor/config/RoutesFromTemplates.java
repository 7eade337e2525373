package dev.ingestor.config;

import org.apache.camel.CamelContext;
import org.apache.camel.spring.boot.CamelContextConfiguration;

/**
 * Routes a stage makes in Java from a template of routes/ (a file drop or SFTP route per supplier, the stage
 * workers, the outbox relays). camel-spring-boot calls {@link #beforeApplicationStart} once it has loaded the YAML
 * routes, and so the templates, and before the Camel context starts: the routes are added then and start with the
 * context. A route added to a running context has no status for a moment, and a health probe in that moment failed
 * in Camel's route health check (camel-health 4.22, a WARN and a DOWN while the application started). A failure to
 * add them fails the start: an instance that silently lacks a supplier, a worker or a relay is worse than one that
 * does not start.
 */
public interface RoutesFromTemplates extends CamelContextConfiguration {

    /** Adds the routes to the context (not started yet at the application's start). */
    void install() throws Exception;

    /** What the routes are, for the message of a failed start: "the stage workers". */
    String routes();

    @Override
    default void beforeApplicationStart(CamelContext camelContext) {
        try {
            install();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("cannot add " + routes() + ": " + e.getMessage(), e);
        }
    }

    @Override
    default void afterApplicationStart(CamelContext camelContext) {
        // the routes start with the context
    }
}
