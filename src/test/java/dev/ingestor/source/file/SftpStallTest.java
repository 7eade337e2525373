package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.UUID;

import dev.ingestor.support.CapturedLogLines;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.TestSftpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The supplier's SFTP server keeps its SSH connection alive while its SFTP side stops sending (a hung disk behind a
 * live sshd): the transfer is abandoned after {@code ingestor.sftp.stall-timeout}, the poll ends with a WARN naming
 * the stall, nothing is made of what was read, and once the server serves again the file is taken exactly once.
 */
// its own SFTP server and properties make its own Spring context; closed afterwards, so that no second set of
// routes keeps polling the shared inbox and database while other test classes run
@DirtiesContext
@Timeout(120)
// slow tier: an SFTP server of its own, in a context of its own, and stalls waited out
@SlowTest
class SftpStallTest extends IngestorTestSupport {

    static final TestSftpServer SFTP = new TestSftpServer("acme", "stall-pw");
    private static final Path OUTBOX = SFTP.root().resolve("outbox");
    private static final Duration STALL_TIMEOUT = Duration.ofSeconds(2);

    @DynamicPropertySource
    static void sftpProperties(DynamicPropertyRegistry registry) {
        registry.add("ingestor.suppliers.ACME.sftp.host", () -> "127.0.0.1");
        registry.add("ingestor.suppliers.ACME.sftp.port", SFTP::port);
        registry.add("ingestor.suppliers.ACME.sftp.username", () -> "acme");
        registry.add("ingestor.suppliers.ACME.sftp.password", () -> "stall-pw");
        registry.add("ingestor.suppliers.ACME.sftp.known-hosts-file", SFTP::knownHostsFile);
        registry.add("ingestor.suppliers.ACME.sftp.directory", () -> "outbox");
        registry.add("ingestor.suppliers.ACME.sftp.poll-interval", () -> "200ms");
        // SFTP times are whole seconds: 2 s means unchanged for at least one
        registry.add("ingestor.suppliers.ACME.sftp.min-age", () -> "2s");
        registry.add("ingestor.suppliers.ACME.sftp.backoff-multiplier", () -> "1");
        registry.add("ingestor.sftp.stall-timeout", () -> STALL_TIMEOUT.toMillis() + "ms");
    }

    @AfterEach
    void serveAgain() {
        SFTP.endStalls();
    }

    @AfterAll
    static void stopServer() {
        SFTP.endStalls();
        SFTP.stop();
    }

    private static void publish(String name, byte[] content) throws IOException {
        Files.createDirectories(OUTBOX);
        Path temp = Files.createTempFile(SFTP.root(), "upload", ".tmp");
        Files.write(temp, content);
        Files.move(temp, OUTBOX.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    /** A CSV of about 300 KB: many SFTP reads, so that the first is only a part of it. */
    private static byte[] bigAdvice(String id) {
        StringBuilder csv = new StringBuilder("source_id,sku,quantity,delivery_date\n");
        for (int i = 0; i < 8000; i++) {
            csv.append(id).append('-').append(i).append(",SKU-").append(i).append(",1,2026-12-01\n");
        }
        return csv.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String keyOf(byte[] content) throws Exception {
        return "ACME:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
    }

    private long claimsOn(String name) {
        return jdbc.queryForObject("SELECT count(*) FROM file_claim WHERE claim_key LIKE ?", Long.class, "%/" + name);
    }

    private static long firstEventSince(String username, String kind, long since) {
        return SFTP.events().stream()
                .filter(e -> e.username().equals(username) && e.kind().equals(kind) && e.nanoTime() > since)
                .mapToLong(TestSftpServer.Event::nanoTime).min().orElse(Long.MAX_VALUE);
    }

    @Test
    void aDownloadThatStallsIsAbandonedAndTheFileIsTakenOnceWhenTheServerServesAgain() throws Exception {
        String id = UUID.randomUUID().toString();
        String name = "stall-" + id + ".csv";
        byte[] content = bigAdvice("ST");
        SFTP.stallNextTransferOf(name);
        try (CapturedLogLines sftp = CapturedLogLines.of("dev.ingestor.sftp");
                CapturedLogLines intake = CapturedLogLines.of("dev.ingestor.intake")) {
            publish(name, content);
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                    .until(() -> SFTP.count("", "stalled") == 1);
            long stalled = firstEventSince("", "stalled", 0);
            assertThat(SFTP.bytesRead(name)).as("the first bytes were served").isPositive()
                    .isLessThan(content.length);

            // the poll ends within the bound: the WARN names the supplier, the file and the setting, the exchange
            // fails without redelivery and the next poll logs in again
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20)).until(
                    () -> sftp.count(m -> m.contains("supplier=ACME") && m.contains("stalled") && m.contains(name)
                            && m.contains("ingestor.sftp.stall-timeout")) == 1);
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
                    .until(() -> firstEventSince("acme", "login", stalled) != Long.MAX_VALUE);
            Duration pollEnded = Duration.ofNanos(firstEventSince("acme", "login", stalled) - stalled);
            assertThat(pollEnded).as("the next poll logged in within the stall timeout and some")
                    .isGreaterThanOrEqualTo(STALL_TIMEOUT).isLessThan(STALL_TIMEOUT.plusSeconds(8));
            assertThat(intake.messages()).anyMatch(m -> m.contains("intake not taken supplier=ACME")
                    && m.contains("stalled") && m.contains(name));

            // the server serves again (the next download of the file is served whole): taken once, whole
            // (.done/ keeps it under a stamped name)
            await().atMost(Duration.ofSeconds(60)).until(() -> filesIn(OUTBOX.resolve(".done")).stream()
                    .anyMatch(done -> done.getFileName().toString().contains(id)));
            assertThat(intake.messages()).noneMatch(m -> m.contains("intake failed"));
        }
        assertThat(jdbc.queryForList("SELECT key FROM import_job WHERE file_name = ?", String.class, name))
                .as("one job, of the whole file and not of the part read before the stall")
                .containsExactly(keyOf(content));
        assertThat(jdbc.queryForObject("SELECT duplicate_count FROM import_job WHERE file_name = ?", Integer.class,
                name)).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM intake_failure WHERE file_name = ?", Long.class, name))
                .isZero();
        assertThat(Files.exists(OUTBOX.resolve(name))).isFalse();
        await().atMost(Duration.ofSeconds(10)).until(() -> claimsOn(name) == 0);
    }

    @Test
    void aListingThatStallsFailsThePollAndTheNextPollWorks() throws Exception {
        try (CapturedLogLines sftp = CapturedLogLines.of("dev.ingestor.sftp")) {
            SFTP.stallNextTransferOf("outbox");
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
                    .until(() -> SFTP.count("acme", "stalled") == 1);
            long stalled = firstEventSince("acme", "stalled", 0);
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20)).until(
                    () -> sftp.count(m -> m.contains("supplier=ACME") && m.contains("stalled") && m.contains("listing")
                            && m.contains("ingestor.sftp.stall-timeout")) == 1);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> sftp.count(m -> m.contains("supplier=ACME") && m.contains("cannot be polled")) >= 1);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> sftp.count(m -> m.contains("supplier=ACME") && m.contains("answers again")) >= 1);
            assertThat(Duration.ofNanos(firstEventSince("acme", "login", stalled) - stalled))
                    .isLessThan(STALL_TIMEOUT.plusSeconds(10));
        }
        // and a file published now is taken
        String name = "after-listing-stall-" + UUID.randomUUID() + ".csv";
        publish(name, ("source_id,sku,quantity,delivery_date\nL-1,SKU,1,2026-12-01\n").getBytes(
                StandardCharsets.UTF_8));
        await().atMost(Duration.ofSeconds(30)).until(
                () -> jdbc.queryForObject("SELECT count(*) FROM import_job WHERE file_name = ?", Long.class,
                        name) == 1);
    }
}
