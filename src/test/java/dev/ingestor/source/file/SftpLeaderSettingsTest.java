package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.InstanceId;
import dev.ingestor.metrics.IngestorMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/**
 * A lease too short for its renewal is refused at start, naming both settings: the holder gives up a renewal before
 * its lease ends, so with less than three renewals to a lease it would get one chance to renew, or none.
 */
class SftpLeaderSettingsTest {

    private static SftpLeadership leadership(Duration lease, Duration renewal) {
        SftpSettings settings = new SftpSettings();
        settings.setLeaderLease(lease);
        settings.setLeaderRenewal(renewal);
        // the lease rows are never read here
        return new SftpLeadership(new RouteLeases(null), new InstanceId(new IngestorProperties()), settings,
                new IngestorMetrics(new SimpleMeterRegistry()));
    }

    @Test
    void aLeaseUnderThreeRenewalsIsRefusedNamingBothSettings() {
        assertThatThrownBy(() -> leadership(Duration.ofSeconds(10), Duration.ofSeconds(5)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("ingestor.sftp.leader-lease (PT10S)")
                .hasMessageContaining("ingestor.sftp.leader-renewal (PT5S)");
        assertThatThrownBy(() -> leadership(Duration.ofSeconds(10), Duration.ZERO))
                .hasMessageContaining("ingestor.sftp.leader-renewal must be positive");
        leadership(Duration.ofSeconds(15), Duration.ofSeconds(5));
    }
}
