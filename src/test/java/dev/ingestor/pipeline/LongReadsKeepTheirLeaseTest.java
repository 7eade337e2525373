package dev.ingestor.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.ingestor.intake.RawStore;
import dev.ingestor.job.ContentKey;
import dev.ingestor.job.JobClaims;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

/**
 * A stage that reads its file for longer than the lease keeps the job: the lease is renewed while the records are
 * read, not only at the stage's writes, so no other worker takes the job over while it is read. The stored file is a
 * named pipe here, fed a few records a second for longer than the lease (4 s), as a slow volume or a hook that calls
 * out for each record reads. Only this context's workers may take the job (other contexts of the test run share the
 * database, with a lease of ten minutes): a takeover is one of its own workers taking it from another.
 */
@DirtiesContext
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "ingestor.pipeline.lease=4s")
// slow tier: a context of its own, reads that last twice its lease
@SlowTest
class LongReadsKeepTheirLeaseTest extends IngestorTestSupport {

    private static final String HEADER = "source_id,source_version,sku,quantity,delivery_date\n";

    @Autowired
    RawStore rawStore;
    @Autowired
    JobClaims claims;

    /** Lets {@code check} alone decide which worker may hold a job, in place of the hold_back before. */
    private void holdBack(String check) {
        jdbc.execute("ALTER TABLE import_job DROP CONSTRAINT IF EXISTS hold_back, ADD CONSTRAINT hold_back CHECK ("
                + check + ") NOT VALID");
    }

    /** Only this context's workers may validate or process a job. */
    private String onlyThisContext() {
        return "state NOT IN ('VALIDATING', 'PROCESSING') OR lease_owner IS NULL OR starts_with(lease_owner, '"
                + claims.owner() + "/')";
    }

    private Path pipe;
    private byte[] content;

    @AfterEach
    void putTheFileBack() throws IOException {
        jdbc.execute("ALTER TABLE import_job DROP CONSTRAINT IF EXISTS hold_back");
        if (pipe != null) {
            Files.deleteIfExists(pipe);
            Files.write(pipe, content);
        }
    }

    private static String records(int from, int to) {
        StringBuilder csv = new StringBuilder();
        for (int i = from; i <= to; i++) {
            csv.append("LR-").append(i).append(",1,SKU,1,2026-12-01\n");
        }
        return csv.toString();
    }

    /** The job's stored file made a named pipe, which each of {@code reads} is written to in its pieces. */
    private CompletableFuture<Void> feed(UUID job, List<List<String>> reads) throws Exception {
        pipe = rawStore.pathOf(ContentKey.parse(
                jdbc.queryForObject("SELECT key FROM import_job WHERE id = ?", String.class, job)));
        content = Files.readAllBytes(pipe);
        Files.delete(pipe);
        assertThat(new ProcessBuilder("mkfifo", pipe.toString()).start().waitFor()).isZero();
        return feed(reads);
    }

    /** Writes each of {@code reads} to the pipe in its pieces, a second apart. */
    private CompletableFuture<Void> feed(List<List<String>> reads) {
        // a thread of its own: a writer that no stage ever reads from stays blocked, and must not hold a shared pool
        return CompletableFuture.runAsync(() -> {
            try {
                for (List<String> pieces : reads) {
                    // opening blocks until the stage opens the file to read it
                    try (OutputStream out = Files.newOutputStream(pipe)) {
                        for (String piece : pieces) {
                            out.write(piece.getBytes(StandardCharsets.UTF_8));
                            out.flush();
                            Thread.sleep(pieces.size() > 1 ? 1000 : 0);
                        }
                    }
                }
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, task -> {
            Thread writer = new Thread(task, "pipe-writer");
            writer.setDaemon(true);
            writer.start();
        });
    }

    private Map<String, Object> awaitCompleted(UUID id) {
        await().atMost(Duration.ofSeconds(40)).until(() -> "COMPLETED"
                .equals(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, id)));
        return jdbc.queryForMap("SELECT * FROM import_job WHERE id = ?", id);
    }

    @Test
    void aValidationReadLongerThanTheLeaseKeepsTheJob() throws Exception {
        jdbc.execute("ALTER TABLE import_job ADD CONSTRAINT hold_back CHECK (state <> 'VALIDATING') NOT VALID");
        UUID id = intake("ACME", "slow.csv", HEADER + records(1, 7));
        CompletableFuture<Void> fed = feed(id, List.of(List.of(HEADER + records(1, 1), records(2, 2), records(3, 3),
                records(4, 4), records(5, 5), records(6, 6), records(7, 7))));
        holdBack(onlyThisContext());

        fed.get(30, TimeUnit.SECONDS);
        assertThat(awaitCompleted(id)).containsEntry("accepted", 7L).containsEntry("takeovers", 0);
    }

    @Test
    void aProcessingReadLongerThanTheLeaseKeepsTheJob() throws Exception {
        // more than a batch (1,000 records), so processing reads the file again, after validation
        jdbc.execute("ALTER TABLE import_job ADD CONSTRAINT hold_back CHECK (state <> 'VALIDATING') NOT VALID");
        UUID id = intake("ACME", "slow-processing.csv", HEADER + records(1, 1500));
        CompletableFuture<Void> validationRead = feed(id, List.of(List.of(HEADER + records(1, 1500))));
        // validated by this context, then waiting for processing: no worker may take it until the pipe's next reading
        holdBack("(" + onlyThisContext() + ") AND (state <> 'PROCESSING' OR lease_owner IS NULL)");
        validationRead.get(30, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                "SELECT state = 'PROCESSING' AND lease_owner IS NULL AND total = 1500 FROM import_job WHERE id = ?",
                Boolean.class, id));
        // the first batch (1,000 records) read over six seconds, past the lease, before its checkpoint renews it
        CompletableFuture<Void> fed = feed(List.of(List.of(HEADER + records(1, 150), records(151, 300),
                records(301, 450), records(451, 600), records(601, 750), records(751, 900), records(901, 1500))));
        holdBack(onlyThisContext());

        fed.get(30, TimeUnit.SECONDS);
        assertThat(awaitCompleted(id)).containsEntry("accepted", 1500L).containsEntry("takeovers", 0);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item WHERE source_id LIKE 'LR-%'", Long.class))
                .isEqualTo(1500);
    }
}
