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
    /**
     * How long an SFTP transfer may go without a byte from the server before it is abandoned: a file's download, or
     * the listing at the start of a poll. A server whose SSH connection lives while its SFTP side sends nothing (a hung
     * disk) would otherwise hold that supplier's poll, its lease and the file's claim until a restart. The session is
     * then disconnected (one WARN naming the supplier, the file and this setting), the file stays on the server and the
     * next poll logs in again. Longer than the slowest listing of a supplier's folder. Positive.
     */
    private Duration stallTimeout = Duration.ofMinutes(2);

    public Duration getLeaderLease() { return leaderLease; }
    public void setLeaderLease(Duration leaderLease) { this.leaderLease = leaderLease; }
    public Duration getLeaderRenewal() { return leaderRenewal; }
    public void setLeaderRenewal(Duration leaderRenewal) { this.leaderRenewal = leaderRenewal; }
    public Duration getStallTimeout() { return stallTimeout; }
    public void setStallTimeout(Duration stallTimeout) { this.stallTimeout = stallTimeout; }
}
