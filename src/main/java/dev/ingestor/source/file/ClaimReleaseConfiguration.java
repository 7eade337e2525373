package dev.ingestor.source.file;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import jakarta.annotation.PreDestroy;
import org.apache.camel.CamelContext;
import org.apache.camel.spring.boot.CamelContextConfiguration;
import org.springframework.stereotype.Component;

/**
 * Releases inbox-file claims a moment after a file is done (see source-file-drop.camel.yaml). Its queue is
 * unbounded on purpose: Camel's default release pool rejects releases past 1,000 pending, which after a burst
 * of files left claims held until their lease ran out. It is bound in Camel's registry only: as a Spring bean
 * of type Executor it would displace Spring Boot's task executor, which platform-http needs.
 */
@Component
class ClaimReleaseConfiguration implements CamelContextConfiguration {

    static final String NAME = "claimReleaseExecutor";
    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "ingestor-claim-release");
        thread.setDaemon(true);
        return thread;
    });

    @Override
    public void beforeApplicationStart(CamelContext camelContext) {
        camelContext.getRegistry().bind(NAME, ScheduledExecutorService.class, executor);
    }

    @Override
    public void afterApplicationStart(CamelContext camelContext) {
    }

    @PreDestroy
    void shutdown() {
        executor.shutdown();
    }
}
