package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.UUID;

import dev.ingestor.support.CapturedLogLines;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.TestSftpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The supplier's SFTP server goes away while Ingestor waits for a file on it to settle (listed, and watched across
 * polls for min-age): the failed poll is reported, nothing is claimed, lost or taken twice, and once the server is
 * back the file is taken exactly once.
 */
// its own SFTP server and properties make its own Spring context; closed afterwards, so that no second set of
// routes keeps polling the shared inbox and database while other test classes run
@DirtiesContext
@Timeout(180)
// slow tier: an SFTP server stopped and started, in a context of its own
@SlowTest
class SftpOutageTest extends IngestorTestSupport {

    static final TestSftpServer SFTP = new TestSftpServer("acme", "outage-pw");
    private static final Path OUTBOX = SFTP.root().resolve("outbox");

    @DynamicPropertySource
    static void sftpProperties(DynamicPropertyRegistry registry) {
        registry.add("ingestor.suppliers.ACME.sftp.host", () -> "127.0.0.1");
        registry.add("ingestor.suppliers.ACME.sftp.port", SFTP::port);
        registry.add("ingestor.suppliers.ACME.sftp.username", () -> "acme");
        registry.add("ingestor.suppliers.ACME.sftp.password", () -> "outage-pw");
        registry.add("ingestor.suppliers.ACME.sftp.known-hosts-file", SFTP::knownHostsFile);
        registry.add("ingestor.suppliers.ACME.sftp.directory", () -> "outbox");
        registry.add("ingestor.suppliers.ACME.sftp.poll-interval", () -> "200ms");
        // a file is watched across polls for this long before it is taken: the window in which the server goes away
        // (wide, so a loaded machine still stops the server inside it)
        registry.add("ingestor.suppliers.ACME.sftp.min-age", () -> "10s");
        registry.add("ingestor.suppliers.ACME.sftp.backoff-multiplier", () -> "2");
    }

    private static void publish(String name, byte[] content) throws IOException {
        Files.createDirectories(OUTBOX);
        Path temp = Files.createTempFile(SFTP.root(), "upload", ".tmp");
        Files.write(temp, content);
        Files.move(temp, OUTBOX.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    private long claimsOn(String name) {
        return jdbc.queryForObject("SELECT count(*) FROM file_claim WHERE claim_key LIKE ?", Long.class, "%/" + name);
    }

    @Test
    void aServerThatGoesAwayWhileAFileSettlesLosesNothingAndTheFileIsTakenOnceWhenItIsBack() throws Exception {
        String name = "outage-" + UUID.randomUUID() + ".csv";
        byte[] content = ("source_id,sku,quantity,delivery_date\nO-1,SKU,1,2026-12-01\n")
                .getBytes(StandardCharsets.UTF_8);

        try (CapturedLogLines sftp = CapturedLogLines.of("dev.ingestor.sftp")) {
            publish(name, content);
            long published = System.nanoTime();
            // a poll has listed the file, which now waits out min-age across polls: now the server goes away
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20)).until(() -> SFTP.events()
                    .stream().anyMatch(e -> e.kind().equals("list") && e.nanoTime() - published > 0));
            SFTP.stop();
            try {
                await().atMost(Duration.ofSeconds(20)).until(
                        () -> sftp.count(m -> m.contains("supplier=ACME") && m.contains("cannot be polled")) >= 1);
                // not claimed before it settled (any instance may take it later), and nothing was taken
                assertThat(claimsOn(name)).isZero();
                assertThat(jobCount()).isZero();
                assertThat(keyCount()).isZero();
                assertThat(sftp.messages()).allSatisfy(m -> assertThat(m).doesNotContain("outage-pw"));
            } finally {
                SFTP.start();
            }

            // the next poll comes after the back-off of the failed ones, and takes the file once it has settled
            await().atMost(Duration.ofSeconds(90)).until(() -> jobCount() == 1);
            await().atMost(Duration.ofSeconds(30)).until(() -> filesIn(OUTBOX.resolve(".done")).size() == 1);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> sftp.count(m -> m.contains("supplier=ACME") && m.contains("answers again")) >= 1);
        }
        // taken once: one job, read once (no duplicate), the remote file gone from the folder to .done/, so no
        // later poll can read it again
        assertThat(jobCount()).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT duplicate_count FROM import_job", Integer.class)).isZero();
        assertThat(jdbc.queryForObject("SELECT file_name FROM import_job", String.class)).isEqualTo(name);
        assertThat(jdbc.queryForObject("SELECT source FROM import_job", String.class)).isEqualTo("sftp");
        assertThat(filesIn(OUTBOX)).isEmpty();
        assertThat(filesIn(OUTBOX.resolve(".done"))).singleElement()
                .satisfies(done -> assertThat(Files.readAllBytes(done)).isEqualTo(content));
    }
}
