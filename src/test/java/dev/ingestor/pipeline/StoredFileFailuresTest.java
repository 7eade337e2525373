package dev.ingestor.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.intake.RawStore;
import dev.ingestor.job.ContentKey;
import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A stored file that cannot be read at the time a stage reads it is no reason to reject its job: a failing storage
 * is redelivered like any I/O failure, and a file that validation read but processing cannot (its bytes or its
 * supplier's settings changed between the two) fails its job keeping the batches applied. Either way the job ends
 * FAILED with a dead letter, and once the file is back a replay finishes it with each effect and event once.
 */
class StoredFileFailuresTest extends IngestorTestSupport {

    private static final String HEADER = "source_id,source_version,sku,quantity,delivery_date\n";

    @Autowired
    RawStore rawStore;

    @AfterEach
    void release() {
        jdbc.execute("ALTER TABLE import_job DROP CONSTRAINT IF EXISTS hold_back");
    }

    private Path rawFileOf(UUID job) {
        return rawStore.pathOf(ContentKey.parse(
                jdbc.queryForObject("SELECT key FROM import_job WHERE id = ?", String.class, job)));
    }

    private Map<String, Object> awaitState(UUID id, String state) {
        await().atMost(Duration.ofSeconds(30)).until(
                () -> state.equals(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, id)));
        return jdbc.queryForMap("SELECT * FROM import_job WHERE id = ?", id);
    }

    private void replayTheDeadLetterOf(UUID job) throws Exception {
        long letter = jdbc.queryForObject("SELECT id FROM dead_letter WHERE job_id = ?", Long.class, job);
        HttpResponse<String> replay = http.send(
                HttpRequest.newBuilder(uri("/api/v1/admin/dead-letters/" + letter + "/replay"))
                        .header("X-Api-Key", ADMIN_KEY).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(replay.statusCode()).as(replay.body()).isEqualTo(202);
    }

    /** A CSV of {@code n} records SF-1 to SF-n, each valid. */
    private static String records(int n) {
        return records(n, "2026-12-01");
    }

    /**
     * {@link #records(int)} delivered on {@code date}: a test that changes the stored bytes uses a date of its own, so
     * that its content is no other test's (whose stored file it would find in place, as it left it).
     */
    private static String records(int n, String date) {
        StringBuilder csv = new StringBuilder(HEADER);
        for (int i = 1; i <= n; i++) {
            csv.append("SF-").append(i).append(",1,SKU,1,").append(date).append("\n");
        }
        return csv.toString();
    }

    /**
     * Takes {@code csv} in and waits until validation has counted its {@code records}, none quarantined: the job then
     * waits for processing, which no worker may take until the test drops the constraint hold_back.
     */
    private UUID validatedAndHeldBackFromProcessing(String name, String csv, int records) {
        return validatedAndHeldBackFromProcessing(name, csv, records, 0);
    }

    private UUID validatedAndHeldBackFromProcessing(String name, String csv, int records, int quarantined) {
        jdbc.execute("ALTER TABLE import_job ADD CONSTRAINT hold_back"
                + " CHECK (lease_owner IS NULL OR state <> 'PROCESSING') NOT VALID");
        UUID id = intake("ACME", name, csv);
        await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                "SELECT state = 'PROCESSING' AND lease_owner IS NULL AND total = ? AND quarantined = ?"
                        + " FROM import_job WHERE id = ?",
                Boolean.class, records, quarantined, id));
        return id;
    }

    /** {@code csv} with the quantity of record {@code sourceId} (a single digit) made {@code quantity}. */
    private static byte[] withQuantity(byte[] csv, String sourceId, char quantity) {
        String text = new String(csv, StandardCharsets.UTF_8);
        byte[] changed = csv.clone();
        changed[text.indexOf(sourceId + ",1,SKU,") + (sourceId + ",1,SKU,").length()] = (byte) quantity;
        return changed;
    }

    /** Each record applied once: one item, one version and one event for each, however many runs it took. */
    private void assertEachRecordOnce(UUID job, int records) {
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item WHERE source_id LIKE 'SF-%'", Long.class))
                .isEqualTo(records);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item_version WHERE source_id LIKE 'SF-%'", Long.class))
                .isEqualTo(records);
        Map<String, Object> events = jdbc.queryForMap("SELECT count(*) AS events,"
                + " count(DISTINCT payload::jsonb ->> 'source_id') AS ids FROM outbox_all"
                + " WHERE topic = 'ingestor.items' AND payload::jsonb ->> 'job_id' = ?", job.toString());
        assertThat(events).containsEntry("events", (long) records).containsEntry("ids", (long) records);
    }

    /**
     * The storage fails at validation's read (the file's name is a folder for a while, which fails every read with
     * EISDIR, as a lost volume does): the job is FAILED after the stage's redeliveries, not REJECTED, and a replay
     * after the storage is back validates and processes it.
     */
    @Test
    void aStorageThatFailsWhileValidationReadsFailsTheJobForAReplayNeverRejectsIt() throws Exception {
        jdbc.execute("ALTER TABLE import_job ADD CONSTRAINT hold_back CHECK (state <> 'VALIDATING') NOT VALID");
        UUID id = intake("ACME", "stored.csv", HEADER + "SF-1,1,SKU,1,2026-12-01\nSF-2,1,SKU,2,2026-12-01\n");
        Path raw = rawFileOf(id);
        Path aside = raw.resolveSibling(raw.getFileName() + ".aside");
        Files.move(raw, aside);
        Files.createDirectory(raw);
        jdbc.execute("ALTER TABLE import_job DROP CONSTRAINT hold_back");

        Map<String, Object> failed = awaitState(id, "FAILED");
        assertThat((String) failed.get("error")).contains("could not be read");
        assertThat(jdbc.queryForObject("SELECT stage FROM dead_letter WHERE job_id = ?", String.class, id))
                .isEqualTo("validation");

        Files.delete(raw);
        Files.move(aside, raw);
        replayTheDeadLetterOf(id);
        assertThat(awaitState(id, "COMPLETED")).containsEntry("accepted", 2L);
        assertEachRecordOnce(id, 2);
    }

    /**
     * A file validation read whole, whose bytes change before processing is done with it (here a byte that is not
     * UTF-8 near its end, where the first batch has been applied when the reader meets it): the job is FAILED with
     * the batches it applied, not REJECTED as if nothing had been, and a replay after the file is put back resumes
     * after its checkpoint.
     */
    @Test
    void aFileThatChangesUnderProcessingFailsItsJobKeepingItsBatchesAndAReplayResumesIt() throws Exception {
        int records = 3000;
        String csv = records(records);
        byte[] original = csv.getBytes(StandardCharsets.UTF_8);
        UUID id = validatedAndHeldBackFromProcessing("changing.csv", csv, records);
        Path raw = rawFileOf(id);
        byte[] changed = original.clone();
        int near = csv.indexOf("SF-" + (records - 50) + ",");
        changed[near] = (byte) 0xff;
        Files.write(raw, changed);
        jdbc.execute("ALTER TABLE import_job DROP CONSTRAINT hold_back");

        Map<String, Object> failed = awaitState(id, "FAILED");
        assertThat((String) failed.get("error")).contains("can no longer be read as it was validated")
                .contains("not valid text");
        assertThat((Long) failed.get("records_done")).as("the batches applied before the change was met")
                .isGreaterThanOrEqualTo(1000L).isLessThan(records);
        assertThat(jdbc.queryForObject("SELECT stage FROM dead_letter WHERE job_id = ?", String.class, id))
                .isEqualTo("processing");

        Files.write(raw, original);
        replayTheDeadLetterOf(id);
        assertThat(awaitState(id, "COMPLETED")).containsEntry("accepted", (long) records)
                .containsEntry("records_done", (long) records);
        assertEachRecordOnce(id, records);
    }

    /**
     * A record validation took that processing finds invalid (here its quantity changed in the stored bytes, as a
     * supplier's hook that fails on processing's reading does): processing would pass it over, neither applied nor
     * quarantined. It fails the job instead, keeping the batches before it, and a replay after the file is put back
     * applies the rest, each record once.
     */
    @Test
    void aRecordThatProcessingFindsInvalidAfterValidationTookItFailsTheJobNotPassedOver() throws Exception {
        int records = 1500;
        String csv = records(records, "2026-12-02");
        byte[] original = csv.getBytes(StandardCharsets.UTF_8);
        UUID id = validatedAndHeldBackFromProcessing("counted.csv", csv, records);
        Path raw = rawFileOf(id);
        Files.write(raw, withQuantity(original, "SF-1200", 'x'));
        jdbc.execute("ALTER TABLE import_job DROP CONSTRAINT hold_back");

        Map<String, Object> failed = awaitState(id, "FAILED");
        assertThat((String) failed.get("error")).contains("the record at line 1201 was valid when validation read it");
        assertThat((Long) failed.get("records_done")).as("the batches before it").isEqualTo(1000L);
        assertThat(jdbc.queryForObject("SELECT stage FROM dead_letter WHERE job_id = ?", String.class, id))
                .isEqualTo("processing");

        Files.write(raw, original);
        replayTheDeadLetterOf(id);
        awaitState(id, "COMPLETED");
        assertEachRecordOnce(id, records);
    }

    /**
     * Validation's verdict stands for every record, also when records flip both ways and the counts would still add
     * up: SF-1100 was quarantined and reads valid now, SF-1200 was taken and reads invalid now. The first is passed
     * over, never applied; the second fails the job.
     */
    @Test
    void validationsVerdictStandsForEachRecordWhenRecordsFlipBothWays() throws Exception {
        int records = 1500;
        byte[] original = withQuantity(records(records, "2026-12-03").getBytes(StandardCharsets.UTF_8), "SF-1100",
                'x');
        UUID id = validatedAndHeldBackFromProcessing("flipped.csv", new String(original, StandardCharsets.UTF_8),
                records, 1);
        Path raw = rawFileOf(id);
        Files.write(raw, withQuantity(withQuantity(original, "SF-1100", '1'), "SF-1200", 'x'));
        jdbc.execute("ALTER TABLE import_job DROP CONSTRAINT hold_back");

        assertThat((String) awaitState(id, "FAILED").get("error")).contains("line 1201");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item WHERE source_id = 'SF-1100'", Long.class))
                .as("quarantined by validation, passed over by processing").isZero();

        Files.write(raw, original);
        replayTheDeadLetterOf(id);
        Map<String, Object> done = awaitState(id, "COMPLETED_WITH_ERRORS");
        assertThat(done).containsEntry("quarantined", 1L).containsEntry("records_done", (long) records);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item WHERE source_id LIKE 'SF-%'", Long.class))
                .isEqualTo(records - 1);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item WHERE source_id = 'SF-1100'", Long.class)).isZero();
    }

    /**
     * A stored file that holds more records than validation counted (a record added to its bytes) does not add up
     * when processing ends: the last batch rolls back and the job fails; a replay after the file is put back completes
     * it, each record once.
     */
    @Test
    void aFileWithMoreRecordsThanValidationCountedDoesNotAddUp() throws Exception {
        int records = 1500;
        String csv = records(records, "2026-12-04");
        UUID id = validatedAndHeldBackFromProcessing("grown.csv", csv, records);
        Path raw = rawFileOf(id);
        Files.writeString(raw, csv + "SF-extra,1,SKU,1,2026-12-01\n");
        jdbc.execute("ALTER TABLE import_job DROP CONSTRAINT hold_back");

        Map<String, Object> failed = awaitState(id, "FAILED");
        assertThat((String) failed.get("error")).contains("does not add up").contains("processing read 1501");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item WHERE source_id = 'SF-extra'", Long.class))
                .as("its batch rolled back").isZero();

        Files.writeString(raw, csv);
        replayTheDeadLetterOf(id);
        awaitState(id, "COMPLETED");
        assertEachRecordOnce(id, records);
    }
}
