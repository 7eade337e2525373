package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.InstanceId;
import dev.ingestor.metrics.IngestorMetrics;
import dev.ingestor.support.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.CamelContext;
import org.apache.camel.Consumer;
import org.apache.camel.Processor;
import org.apache.camel.Producer;
import org.apache.camel.ServiceStatus;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.spi.RoutePolicy;
import org.apache.camel.support.DefaultConsumer;
import org.apache.camel.support.DefaultEndpoint;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * An SFTP route under its lease, with Camel's own clustered route policy, on a real PostgreSQL: a route that does not
 * start when this instance gains the lease does not leave the lease held with nobody polling.
 */
class SftpLeadershipTest {

    private static JdbcTemplate jdbc;

    @BeforeAll
    static void setUp() {
        jdbc = TestPostgres.migrated("sftp_leadership");
    }

    @BeforeEach
    void empty() {
        jdbc.execute("TRUNCATE route_leader");
    }

    /** An endpoint whose consumer's start fails {@code failures} times, as a poller that cannot start would. */
    private static final class StartsAfter extends DefaultEndpoint {

        private final AtomicInteger failures;

        StartsAfter(CamelContext camel, AtomicInteger failures) {
            super("starts-after://acme", null);
            setCamelContext(camel);
            this.failures = failures;
        }

        @Override
        public Producer createProducer() {
            throw new UnsupportedOperationException("a source only");
        }

        @Override
        public Consumer createConsumer(Processor processor) {
            return new DefaultConsumer(this, processor) {
                @Override
                protected void doStart() throws Exception {
                    if (failures.getAndDecrement() > 0) {
                        throw new IllegalStateException("on purpose: the route cannot start");
                    }
                    super.doStart();
                }
            };
        }
    }

    @Test
    void aRouteThatDidNotStartOnLeadershipGainedIsStartedAtALaterTry() throws Exception {
        IngestorProperties properties = new IngestorProperties();
        properties.setInstanceId("one");
        SftpSettings settings = new SftpSettings();
        settings.setLeaderLease(Duration.ofSeconds(6));
        settings.setLeaderRenewal(Duration.ofMillis(200));
        SftpLeadership leadership = new SftpLeadership(new RouteLeases(jdbc), new InstanceId(properties), settings,
                new IngestorMetrics(new SimpleMeterRegistry()));
        AtomicInteger failures = new AtomicInteger(1);
        try (CamelContext camel = new DefaultCamelContext()) {
            RoutePolicy policy = leadership.policyFor(camel, "sftp-ACME");
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from(new StartsAfter(camel, failures)).routeId("sftp-ACME").routePolicy(policy).log("polled");
                }
            });
            camel.start();
            leadership.routeAdded("sftp-ACME");

            // well before the lease would run out: the lease was given back and taken again, and the route started
            await().atMost(Duration.ofSeconds(3)).until(
                    () -> camel.getRouteController().getRouteStatus("sftp-ACME") == ServiceStatus.Started);
            assertThat(failures.get()).as("the first start failed").isNegative();
            assertThat(leadership.leadsNow("sftp-ACME")).isTrue();
        }
    }
}
