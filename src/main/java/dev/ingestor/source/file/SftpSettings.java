package dev.ingestor.source.file;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code ingestor.sftp.*}: what all SFTP supplier routes share. Each supplier's server, login and poll interval
 * are {@code ingestor.suppliers.<CODE>.sftp.*} ({@link dev.ingestor.config.SupplierProperties.Sftp}).
 */
@ConfigurationProperties(prefix = "ingestor.sftp")
public class SftpSettings {

    /**
     * How long the lease on a supplier's SFTP route lasts: of several instances, only its holder polls that
     * supplier's server. When the holder dies without giving it back, another instance takes over once it has run
     * out (within this plus {@code leader-renewal}). At least three times {@code leader-renewal}.
     */
    private Duration leaderLease = Duration.ofSeconds(30);
    /**
     * How often the holder renews its lease, and how often the other instances try to take it. The holder stops
     * polling when it could not renew for {@code leader-lease} minus this, so before another instance may take it.
     */
    private Duration leaderRenewal = Duration.ofSeconds(5);

    public Duration getLeaderLease() { return leaderLease; }
    public void setLeaderLease(Duration leaderLease) { this.leaderLease = leaderLease; }
    public Duration getLeaderRenewal() { return leaderRenewal; }
    public void setLeaderRenewal(Duration leaderRenewal) { this.leaderRenewal = leaderRenewal; }
}
