package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import com.jcraft.jsch.ChannelSftp;
import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.InstanceId;
import dev.ingestor.intake.IntakeSettings;
import dev.ingestor.support.TestPostgres;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.component.file.remote.RemoteFile;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The SFTP routes' claims on a real PostgreSQL: whose file a key names, and which exchange lets go of it when Camel
 * aborts. Camel's own endpoints; no server is reached (a read lock only names the file).
 */
class SftpClaimReadLockTest {

    private static JdbcTemplate jdbc;
    private static CamelContext camel;
    private static ScheduledExecutorService releases;

    @BeforeAll
    static void setUp() {
        jdbc = TestPostgres.migrated("sftp_claims");
        camel = new DefaultCamelContext();
        releases = Executors.newSingleThreadScheduledExecutor();
    }

    @AfterAll
    static void tearDown() throws Exception {
        releases.shutdownNow();
        camel.close();
    }

    @BeforeEach
    void empty() {
        jdbc.execute("TRUNCATE file_claim");
    }

    private static FileClaimRepository claims() {
        return claims(Duration.ofMinutes(10));
    }

    private static FileClaimRepository claims(Duration lease) {
        IngestorProperties properties = new IngestorProperties();
        properties.setInstanceId("one");
        IntakeSettings intake = new IntakeSettings();
        intake.setClaimLease(lease);
        return new FileClaimRepository(jdbc, new InstanceId(properties), intake);
    }

    /** An exchange of the route polling {@code account}'s {@code /upload} on one server. */
    private static Exchange polledBy(String account) {
        Exchange exchange = new DefaultExchange(camel);
        exchange.getExchangeExtension()
                .setFromEndpoint(camel.getEndpoint("sftp://sftp.example.org:22/upload?username=" + account));
        return exchange;
    }

    private static RemoteFile<ChannelSftp.LsEntry> file(String path) {
        RemoteFile<ChannelSftp.LsEntry> file = new RemoteFile<>();
        file.setAbsoluteFilePath(path);
        return file;
    }

    private static long claimsOf(String key) {
        return jdbc.queryForObject("SELECT count(*) FROM file_claim WHERE claim_key = ?", Long.class, key);
    }

    @Test
    void twoAccountsOnOneServerAndFolderHoldTheirOwnFiles() throws Exception {
        SftpClaimReadLock lock = new SftpClaimReadLock(claims(), releases, 0, false);
        Exchange acme = polledBy("acme");
        Exchange globex = polledBy("globex");

        assertThat(lock.acquireExclusiveReadLock(null, file("/upload/orders.csv"), acme)).isTrue();
        assertThat(lock.acquireExclusiveReadLock(null, file("/upload/orders.csv"), globex))
                .as("the other account's file of the same name").isTrue();
        assertThat(SftpClaimReadLock.key(file("/upload/orders.csv"), acme))
                .isEqualTo("sftp://acme@sftp.example.org:22/upload /upload/orders.csv");
    }

    @Test
    void aFileListedAgainAfterADownloadThatFailedIsTakenAgain() throws Exception {
        FileClaimRepository claims = claims();
        SftpClaimReadLock lock = new SftpClaimReadLock(claims, releases, 0, false);
        Exchange failed = polledBy("acme");
        String key = SftpClaimReadLock.key(file("/upload/orders.csv"), failed);

        assertThat(lock.acquireExclusiveReadLock(null, file("/upload/orders.csv"), failed)).isTrue();
        // the download fails: Camel lets go of nothing, and lists the file again at its next poll
        Exchange again = polledBy("acme");
        assertThat(lock.acquireExclusiveReadLock(null, file("/upload/orders.csv"), again))
                .as("taken again at the next poll, not after the claim's lease").isTrue();
        assertThat(claimsOf(key)).isEqualTo(1);

        lock.releaseExclusiveReadLockOnRollback(null, file("/upload/orders.csv"), again);
        assertThat(claimsOf(key)).isZero();
    }

    @Test
    void aFileDoneIsLetGoOfAfterTheReleaseDelay() throws Exception {
        FileClaimRepository claims = claims();
        SftpClaimReadLock lock = new SftpClaimReadLock(claims, releases, 300, false);
        Exchange done = polledBy("acme");
        String key = SftpClaimReadLock.key(file("/upload/orders.csv"), done);

        assertThat(lock.acquireExclusiveReadLock(null, file("/upload/orders.csv"), done)).isTrue();
        lock.releaseExclusiveReadLockOnCommit(null, file("/upload/orders.csv"), done);
        assertThat(claimsOf(key)).as("kept for the release delay").isEqualTo(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> claimsOf(key) == 0);
        assertThat(claims.holds(key)).isFalse();
    }

    @Test
    void anAbortAfterARefusedLockLeavesTheHoldersClaim() throws Exception {
        FileClaimRepository claims = claims();
        SftpClaimReadLock holder = new SftpClaimReadLock(claims, releases, 0, false);
        SftpClaimReadLock other = new SftpClaimReadLock(claims, releases, 0, false);
        Exchange holding = polledBy("acme");
        Exchange refused = polledBy("acme");
        String key = SftpClaimReadLock.key(file("/upload/orders.csv"), holding);

        assertThat(holder.acquireExclusiveReadLock(null, file("/upload/orders.csv"), holding)).isTrue();
        assertThat(other.acquireExclusiveReadLock(null, file("/upload/orders.csv"), refused)).isFalse();
        // what Camel does next with a file whose lock was refused
        other.releaseExclusiveReadLockOnAbort(null, file("/upload/orders.csv"), refused);

        assertThat(claimsOf(key)).as("the holder's claim").isEqualTo(1);
        assertThat(claims.holds(key)).as("still held by this run").isTrue();

        holder.releaseExclusiveReadLockOnAbort(null, file("/upload/orders.csv"), holding);
        assertThat(claimsOf(key)).as("let go by the exchange that took it").isZero();
    }

    @Test
    void aClaimLeftOpenByAFailedDownloadIsForgottenAfterTheLease() throws Exception {
        FileClaimRepository claims = claims(Duration.ofMillis(200));
        SftpClaimReadLock lock = new SftpClaimReadLock(claims, releases, 0, false);
        Exchange failed = polledBy("acme");
        String key = SftpClaimReadLock.key(file("/upload/vanished.csv"), failed);

        assertThat(lock.acquireExclusiveReadLock(null, file("/upload/vanished.csv"), failed)).isTrue();
        // its download failed, and the file is gone before the next poll: never listed again
        assertThat(lock.openClaims()).isEqualTo(1);
        Thread.sleep(300);
        assertThat(lock.acquireExclusiveReadLock(null, file("/upload/next.csv"), polledBy("acme"))).isTrue();
        assertThat(lock.openClaims()).as("the next file's only").isEqualTo(1);
        assertThat(claims.holds(key)).as("nor held by this run any more").isFalse();
    }
}
