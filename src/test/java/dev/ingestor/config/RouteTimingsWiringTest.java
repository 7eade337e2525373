package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.ingestor.support.IngestorTestSupport;
import org.apache.camel.component.scheduler.SchedulerEndpoint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.core.env.Environment;
import org.springframework.util.unit.DataSize;

/**
 * The routes' pollers run at the typed durations IngestorTestSupport configures ({@code 100ms}), not at a
 * number read as something else or at Camel's default.
 */
@Timeout(120)
class RouteTimingsWiringTest extends IngestorTestSupport {

    @Autowired
    Environment environment;

    @Test
    void stageWorkersAndOutboxRelaysPollAtTheConfiguredIntervals() {
        List<SchedulerEndpoint> schedulers = camelContext.getEndpoints().stream()
                .filter(SchedulerEndpoint.class::isInstance).map(SchedulerEndpoint.class::cast).toList();
        List<SchedulerEndpoint> relays = schedulers.stream()
                .filter(e -> e.getEndpointUri().contains("outbox-relay")).toList();
        // the stage workers; the routes run on a fixed schedule have intervals of their own
        List<SchedulerEndpoint> workers = schedulers.stream()
                .filter(e -> e.getEndpointUri().matches("scheduler://(validation|processing)-\\d+\\?.*")).toList();

        assertThat(relays).isNotEmpty().allSatisfy(e -> assertThat(e.getDelay()).as(e.getEndpointUri()).isEqualTo(100));
        assertThat(workers).hasSize(4)
                .allSatisfy(e -> assertThat(e.getDelay()).as(e.getEndpointUri()).isEqualTo(100));
        assertThat(camelContext.resolvePropertyPlaceholders("{{bean:routeTimings.intakeRedeliveryDelay}}"))
                .isEqualTo("50");
        assertThat(camelContext.resolvePropertyPlaceholders("{{bean:routeTimings.kafkaTimeout}}")).isEqualTo("5000");
    }

    @Test
    void whatRoutesAndSpringTakeFromIngestorSettingsFollowsThemWithoutApplicationYamlRepeatingThem() {
        // IngestorTestSupport: stray-scan-interval 300ms, http.max-file-size 1MB, data-dir DATA; the rest defaults
        assertThat(camelContext.resolvePropertyPlaceholders("{{bean:routeTimings.strayScanInterval}}"))
                .isEqualTo("300");
        assertThat(camelContext.resolvePropertyPlaceholders("{{bean:routeTimings.retentionInterval}}"))
                .isEqualTo("3600000");
        assertThat(camelContext.resolvePropertyPlaceholders("{{bean:kafkaSettings.getItemsTopic}}"))
                .isEqualTo("ingestor.items");
        assertThat(camelContext.resolvePropertyPlaceholders("{{bean:kafkaSettings.getDeadLettersTopic}}"))
                .isEqualTo("ingestor.dead-letters");
        assertThat(environment.getProperty("spring.servlet.multipart.max-file-size", DataSize.class))
                .isEqualTo(DataSize.ofMegabytes(1));
        assertThat(environment.getProperty("spring.servlet.multipart.max-request-size", DataSize.class))
                .isEqualTo(DataSize.ofKilobytes(1024 + 64));
        assertThat(camelContext.getStreamCachingStrategy().getSpoolDirectory().toPath())
                .isEqualTo(DATA.resolve("spool"));
    }
}
