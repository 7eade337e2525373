package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Proxy;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.InstanceId;
import dev.ingestor.metrics.IngestorMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.camel.Consumer;
import org.apache.camel.Endpoint;
import org.apache.camel.spi.RouteIdAware;
import org.junit.jupiter.api.Test;

/**
 * {@code ingestor_sftp_up{supplier}}, which the SftpDown alert rule reads: 0 after a poll of the supplier's server
 * failed, 1 again after one that worked. The consumer and endpoint are plain stand-ins answering what the
 * strategy asks (the route id names the supplier).
 */
class SftpUpGaugeTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final IngestorMetrics metrics = new IngestorMetrics(registry);
    /** Whether this instance holds the routes' leases: the real leadership, its lease service's answer set here. */
    private volatile boolean leading = true;
    private final SftpLeadership leadership = new SftpLeadership(new RouteLeases(null),
            new InstanceId(new IngestorProperties()), new SftpSettings(), metrics) {
        @Override
        public boolean leadsNow(String routeId) {
            return leading;
        }
    };
    private final SftpPollStrategy strategy = new SftpPollStrategy(metrics, new LinkRefusals(), leadership,
            new SftpStallWatchdog(new SftpSettings()));

    private static Consumer consumerOf(String routeId) {
        return (Consumer) Proxy.newProxyInstance(SftpUpGaugeTest.class.getClassLoader(),
                new Class<?>[] {Consumer.class, RouteIdAware.class},
                (proxy, method, args) -> "getRouteId".equals(method.getName()) ? routeId : null);
    }

    private static Endpoint endpoint() {
        return (Endpoint) Proxy.newProxyInstance(SftpUpGaugeTest.class.getClassLoader(),
                new Class<?>[] {Endpoint.class},
                (proxy, method,
                        args) -> "getEndpointBaseUri".equals(method.getName()) ? "sftp://127.0.0.1:2222/outbox" : null);
    }

    private double up(String supplier) {
        return registry.get("ingestor.sftp.up").tag("supplier", supplier).gauge().value();
    }

    @Test
    void theGaugeFollowsTheLastPollOfEachSuppliersServer() {
        Consumer acme = consumerOf("sftp-ACME");
        Consumer globex = consumerOf("sftp-GLOBEX");
        strategy.commit(acme, endpoint(), 0);
        strategy.commit(globex, endpoint(), 1);
        assertThat(up("ACME")).isEqualTo(1.0);

        strategy.rollback(acme, endpoint(), 0, new IOException("Connection refused"));
        assertThat(up("ACME")).isEqualTo(0.0);
        assertThat(up("GLOBEX")).as("one supplier's server is not another's").isEqualTo(1.0);

        strategy.commit(acme, endpoint(), 0);
        assertThat(up("ACME")).isEqualTo(1.0);
    }

    /**
     * An instance that lost the route's lease (cut off from the server and the database alike, its last poll failed)
     * no longer exports the gauge, nor brings it back with a poll that ends after the loss: the instance that took
     * over polls the server, and the alert reads its gauge alone.
     */
    @Test
    void anInstanceThatNoLongerPollsTheServerExportsNoGaugeForIt() {
        Consumer acme = consumerOf("sftp-ACME");
        strategy.rollback(acme, endpoint(), 0, new IOException("Connection timed out"));
        assertThat(up("ACME")).isEqualTo(0.0);

        leading = false;
        leadership.leadershipChanged("sftp-ACME", false);
        assertThat(registry.find("ingestor.sftp.up").tag("supplier", "ACME").gauge()).isNull();
        // the poll that was waiting on the server ends after the lease was lost
        strategy.rollback(acme, endpoint(), 1, new IOException("Connection timed out"));
        assertThat(registry.find("ingestor.sftp.up").tag("supplier", "ACME").gauge()).isNull();

        leading = true;
        leadership.leadershipChanged("sftp-ACME", true);
        strategy.commit(acme, endpoint(), 0);
        assertThat(up("ACME")).isEqualTo(1.0);
    }
}
