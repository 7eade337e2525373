package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.UUID;

import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.LockHolder;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.TestSftpServer;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A supplier whose files are deleted after pickup names each day's file the same. The instance that leads its SFTP
 * route downloads the file and is paused (a long GC pause, a frozen VM) before its intake commits, for longer than the
 * file's claim: another instance takes the file over, imports and deletes it, and the supplier then puts the next
 * day's file under the same name. The resumed instance must not delete that file, which nobody has read. The pause is
 * the content key's lock, which the test holds while intake waits for it; the other instance's part is done by hand.
 */
@org.springframework.test.annotation.DirtiesContext
// slow tier: an SFTP server and a context of its own
@SlowTest
class SftpDeleteAfterPauseTest extends IngestorTestSupport {

    static final TestSftpServer SFTP = new TestSftpServer("acme", "s3cret-pw");
    private static final Path OUTBOX = SFTP.root().resolve("outbox");

    @DynamicPropertySource
    static void sftpProperties(DynamicPropertyRegistry registry) {
        registry.add("ingestor.suppliers.ACME.sftp.host", () -> "127.0.0.1");
        registry.add("ingestor.suppliers.ACME.sftp.port", SFTP::port);
        registry.add("ingestor.suppliers.ACME.sftp.username", () -> "acme");
        registry.add("ingestor.suppliers.ACME.sftp.password", () -> "s3cret-pw");
        registry.add("ingestor.suppliers.ACME.sftp.known-hosts-file", () -> SFTP.knownHostsFile());
        registry.add("ingestor.suppliers.ACME.sftp.directory", () -> "outbox");
        registry.add("ingestor.suppliers.ACME.sftp.poll-interval", () -> "200ms");
        // SFTP times are whole seconds: 2 s means unchanged for at least one
        registry.add("ingestor.suppliers.ACME.sftp.min-age", () -> "2s");
        registry.add("ingestor.suppliers.ACME.sftp.after-pickup", () -> "delete");
    }

    @Test
    void aResumedInstanceDoesNotDeleteTheNextFileOfTheSameName() throws Exception {
        Files.createDirectories(OUTBOX);
        byte[] today = advice("D-" + UUID.randomUUID());
        byte[] tomorrow = advice("D-" + UUID.randomUUID() + "-next-day");
        try (LockHolder holder = new LockHolder()) {
            holder.holdContentKey(keyOf(today));
            publish("daily.csv", today);
            // downloaded; its intake waits for the key: the pause
            await().atMost(Duration.ofSeconds(30)).until(() -> blockedBy(holder.pid()) != null);

            // meanwhile its claim lapsed: another instance took the file, imported it, deleted it and let go of the
            // claim; the supplier put the next day's file under the same name
            jdbc.update("DELETE FROM file_claim WHERE claim_key LIKE '%daily.csv'");
            Files.delete(OUTBOX.resolve("daily.csv"));
            publish("daily.csv", tomorrow);

            holder.releaseContentKey(keyOf(today));
        }
        // the next day's file is read before it is deleted, at a later poll if not by the resumed instance
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(
                jdbc.queryForList("SELECT key FROM import_job WHERE file_name = 'daily.csv'", String.class))
                .as("the jobs of the files named daily.csv").contains(keyOf(today), keyOf(tomorrow)));
    }

    private static void publish(String name, byte[] content) throws Exception {
        Path temp = Files.createTempFile(SFTP.root(), "upload", ".tmp");
        Files.write(temp, content);
        Files.move(temp, OUTBOX.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    private static String keyOf(byte[] content) throws Exception {
        return "ACME:" + java.util.HexFormat.of()
                .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(content));
    }

    private static byte[] advice(String id) {
        return ("source_id,sku,quantity,delivery_date\n" + id + ",SKU,1,2026-12-01\n").getBytes(StandardCharsets.UTF_8);
    }
}
