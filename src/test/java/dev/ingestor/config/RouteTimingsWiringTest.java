package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import dev.ingestor.support.IngestorTestSupport;
import org.apache.camel.component.scheduler.SchedulerEndpoint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The routes' pollers run at the typed durations IngestorTestSupport configures ({@code 100ms}), not at a
 * number read as something else or at Camel's default.
 */
@Timeout(120)
class RouteTimingsWiringTest extends IngestorTestSupport {

    @Test
    void stageWorkersAndOutboxRelaysPollAtTheConfiguredIntervals() {
        List<SchedulerEndpoint> schedulers = camelContext.getEndpoints().stream()
                .filter(SchedulerEndpoint.class::isInstance).map(SchedulerEndpoint.class::cast).toList();
        List<SchedulerEndpoint> relays = schedulers.stream()
                .filter(e -> e.getEndpointUri().contains("outbox-relay")).toList();
        List<SchedulerEndpoint> workers = schedulers.stream()
                .filter(e -> !e.getEndpointUri().contains("outbox-relay")).toList();

        assertThat(relays).isNotEmpty().allSatisfy(e -> assertThat(e.getDelay()).as(e.getEndpointUri()).isEqualTo(100));
        assertThat(workers).isNotEmpty().allSatisfy(e -> assertThat(e.getDelay()).as(e.getEndpointUri()).isEqualTo(100));
        assertThat(camelContext.resolvePropertyPlaceholders("{{bean:routeTimings.intakeRedeliveryDelay}}")).isEqualTo("50");
        assertThat(camelContext.resolvePropertyPlaceholders("{{bean:routeTimings.kafkaTimeout}}")).isEqualTo("5000");
    }
}
