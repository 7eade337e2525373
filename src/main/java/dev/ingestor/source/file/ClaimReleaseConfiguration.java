package dev.ingestor.source.file;

import java.util.concurrent.ScheduledExecutorService;

import org.apache.camel.CamelContext;
import org.apache.camel.builder.ThreadPoolProfileBuilder;
import org.apache.camel.spring.boot.CamelContextConfiguration;
import org.springframework.stereotype.Component;

/**
 * Releases inbox-file claims a moment after a file is done (see source-file-drop.camel.yaml). It is Camel's
 * thread pool, so Camel names it, lists it and shuts it down when the context stops, after the routes: the
 * releases still pending then run before the pool ends (Camel waits for them, up to its shutdown await time),
 * while the database is still there. Its queue is unbounded on purpose: Camel's default profile rejects
 * releases past 1,000 pending, which after a burst of files left claims held until their lease ran out. It is
 * bound in Camel's registry only: as a Spring bean of type Executor it would displace Spring Boot's task
 * executor, which platform-http needs.
 */
@Component
class ClaimReleaseConfiguration implements CamelContextConfiguration {

    static final String NAME = "claimReleaseExecutor";

    @Override
    public void beforeApplicationStart(CamelContext camelContext) {
        executor(camelContext);
    }

    /**
     * The pool of {@code camelContext}, made and bound on the first call: at the context's start, or earlier by an
     * SFTP route being made (SupplierRouteInstaller). camel-spring-boot runs the CamelContextConfigurations in the
     * order their beans were registered ({@code getBeansOfType}; {@code @Order} is not read), so neither may count
     * on the other having run.
     */
    static synchronized ScheduledExecutorService executor(CamelContext camelContext) {
        ScheduledExecutorService bound = camelContext.getRegistry().lookupByNameAndType(NAME,
                ScheduledExecutorService.class);
        if (bound != null) {
            return bound;
        }
        ScheduledExecutorService executor = camelContext.getExecutorServiceManager().newScheduledThreadPool(
                NAME, "ingestor-claim-release",
                new ThreadPoolProfileBuilder(NAME).poolSize(1).maxQueueSize(-1).build());
        camelContext.getRegistry().bind(NAME, ScheduledExecutorService.class, executor);
        return executor;
    }

    @Override
    public void afterApplicationStart(CamelContext camelContext) {
    }
}
