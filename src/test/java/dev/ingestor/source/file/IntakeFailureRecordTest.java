package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * Files that never become a job are still on record: one intake_failure row per rejected or failed arrival,
 * naming the file where it now lies, counted in ingestor_intake_total and listed by the admin API.
 */
class IntakeFailureRecordTest extends IngestorTestSupport {

    private static final byte[] ADVICE = "source_id,sku,quantity,delivery_date\nR-1,SKU-1,3,2026-12-24\n"
            .getBytes(StandardCharsets.UTF_8);

    @Autowired
    MeterRegistry registry;

    @AfterEach
    void removeFaults() throws Exception {
        jdbc.execute("DROP TRIGGER IF EXISTS intake_fault ON import_job");
        jdbc.execute("DROP FUNCTION IF EXISTS intake_fault()");
        deleteTree(INBOX.resolve("nobody"));
    }

    /** Every job insert fails as a full disk would: a transient failure that outlasts the redelivery policy. */
    private void failJobInserts() {
        jdbc.execute("""
                CREATE FUNCTION intake_fault() RETURNS trigger AS $$
                BEGIN RAISE EXCEPTION 'disk full (injected)'; END $$ LANGUAGE plpgsql""");
        jdbc.execute(
                "CREATE TRIGGER intake_fault BEFORE INSERT ON import_job FOR EACH ROW EXECUTE FUNCTION intake_fault()");
    }

    private double intakeCount(String source, String outcome) {
        // every supplier's count of each source and outcome is there from the start
        return registry.find("ingestor.intake").tag("source", source).tag("outcome", outcome).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    private List<Map<String, Object>> rows() {
        return jdbc.queryForList("SELECT * FROM intake_failure ORDER BY id");
    }

    private void awaitRows(int expected) {
        await().atMost(Duration.ofSeconds(20)).until(() -> rows().size() == expected);
    }

    @Test
    void aDropWithAnUnusableNameIsRecordedOnceAsRejectedWhereItWasMoved() throws Exception {
        double before = intakeCount("file-drop", "rejected");
        drop("ACME", "bad\u0007name.csv", ADVICE);

        awaitFiles(INBOX.resolve("ACME/.rejected"), 1);
        awaitRows(1);
        Map<String, Object> row = rows().get(0);
        assertThat(row).containsEntry("supplier", "ACME").containsEntry("source", "file-drop")
                .containsEntry("file_name", "bad\u0007name.csv").containsEntry("size", (long) ADVICE.length)
                .containsEntry("outcome", "rejected");
        assertThat((String) row.get("reason"))
                .isEqualTo("the file name contains the control character U+0007 at position 4");
        Path moved = filesIn(INBOX.resolve("ACME/.rejected")).get(0);
        assertThat(row.get("location")).isEqualTo(moved.toAbsolutePath().toString());
        assertThat(intakeCount("file-drop", "rejected")).isEqualTo(before + 1);
        assertThat(jobCount()).isZero();
    }

    @Test
    void aDropThatOutlastsRedeliveryIsRecordedOnceAsFailedAndCounted() throws Exception {
        double before = intakeCount("file-drop", "failed");
        failJobInserts();
        drop("ACME", "advice.csv", ADVICE);

        awaitFiles(INBOX.resolve("ACME/.failed"), 1);
        awaitRows(1);
        // on purpose: the move follows the record, and in the moments after it nothing more may be written
        Thread.sleep(500);
        assertThat(rows()).hasSize(1);
        Map<String, Object> row = rows().get(0);
        assertThat(row).containsEntry("supplier", "ACME").containsEntry("source", "file-drop")
                .containsEntry("file_name", "advice.csv").containsEntry("size", (long) ADVICE.length)
                .containsEntry("outcome", "failed");
        assertThat((String) row.get("reason")).contains("disk full (injected)");
        Path moved = filesIn(INBOX.resolve("ACME/.failed")).get(0);
        assertThat(row.get("location")).isEqualTo(moved.toAbsolutePath().toString());
        assertThat(intakeCount("file-drop", "failed")).isEqualTo(before + 1);
    }

    @Test
    void aStrayFileIsRecordedUnderItsFolder() throws Exception {
        double before = intakeCount("stray", "rejected");
        drop("nobody", "lost.csv", ADVICE);

        awaitFiles(INBOX.resolve("nobody/.rejected"), 1);
        awaitRows(1);
        Map<String, Object> row = rows().get(0);
        assertThat(row).containsEntry("supplier", "nobody").containsEntry("source", "stray")
                .containsEntry("file_name", "lost.csv").containsEntry("size", (long) ADVICE.length)
                .containsEntry("outcome", "rejected");
        assertThat((String) row.get("reason")).contains("folder \"nobody\" is no configured supplier");
        assertThat(row.get("location"))
                .isEqualTo(filesIn(INBOX.resolve("nobody/.rejected")).get(0).toAbsolutePath().toString());
        assertThat(intakeCount("stray", "rejected")).isEqualTo(before + 1);
    }

    // slow tier: many failed drops
    @SlowTest
    @Test
    void theAdminApiListsThemNewestFirstAPageAtATime() throws Exception {
        drop("ACME", "first|.csv", ADVICE);
        awaitRows(1);
        drop("ACME", "second|.csv", ADVICE);
        awaitRows(2);
        drop("nobody", "third.csv", ADVICE);
        awaitRows(3);

        HttpResponse<String> response = get("/api/v1/admin/intake-failures?supplier=ACME&page=0&size=1");
        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode page = JSON.readTree(response.body());
        assertThat(page.get("total").asLong()).isEqualTo(2);
        assertThat(page.get("page").asInt()).isZero();
        assertThat(page.get("size").asInt()).isEqualTo(1);
        assertThat(page.get("items")).hasSize(1);
        assertThat(page.get("items").get(0).get("fileName").asString()).isEqualTo("second|.csv");
        assertThat(page.get("items").get(0).get("reason").asString()).contains("the file name contains '|'");

        JsonNode next = JSON.readTree(get("/api/v1/admin/intake-failures?supplier=ACME&page=1&size=1").body());
        assertThat(next.get("items").get(0).get("fileName").asString()).isEqualTo("first|.csv");

        // by cursor (no page number): no total, whether more follow
        JsonNode all = JSON.readTree(get("/api/v1/admin/intake-failures").body());
        assertThat(all.has("total")).isFalse();
        assertThat(all.get("items")).hasSize(3);
        assertThat(all.get("more").asBoolean()).isFalse();
        assertThat(all.get("items").get(0).get("fileName").asString()).isEqualTo("third.csv");
        assertThat(all.get("items").get(0).get("supplier").asString()).isEqualTo("nobody");
        JsonNode drops = JSON.readTree(get("/api/v1/admin/intake-failures?source=file-drop&size=1").body());
        assertThat(drops.get("items")).hasSize(1);
        assertThat(drops.get("items").get(0).get("fileName").asString()).isEqualTo("second|.csv");
        assertThat(drops.get("more").asBoolean()).isTrue();
        JsonNode after = JSON.readTree(get("/api/v1/admin/intake-failures?source=file-drop&size=1&after="
                + drops.get("next").asString()).body());
        assertThat(after.get("items").get(0).get("fileName").asString()).isEqualTo("first|.csv");
        assertThat(after.get("more").asBoolean()).isFalse();
        assertThat(after.get("next").isNull()).isTrue();

        assertThat(get("/api/v1/admin/intake-failures", ACME_KEY).statusCode()).isEqualTo(403);
        assertThat(get("/api/v1/admin/intake-failures?size=0").statusCode()).isEqualTo(400);
    }

    @Test
    void aFailedDropRetriedFromTheAdminApiBecomesAJobAndIsMarkedRetried() throws Exception {
        failJobInserts();
        drop("ACME", "advice.csv", ADVICE);
        awaitFiles(INBOX.resolve("ACME/.failed"), 1);
        awaitRows(1);
        long id = (Long) rows().get(0).get("id");
        removeFaults();

        HttpResponse<String> retried = post("/api/v1/admin/intake-failures/" + id + "/retry", ADMIN_KEY, null,
                new byte[0]);
        assertThat(retried.statusCode()).as(retried.body()).isEqualTo(202);
        awaitJobs(1);
        assertThat(jdbc.queryForObject("SELECT file_name FROM import_job", String.class)).isEqualTo("advice.csv");
        assertThat(filesIn(INBOX.resolve("ACME/.failed"))).isEmpty();
        Map<String, Object> row = rows().get(0);
        assertThat(row.get("retried_at")).isNotNull();
        assertThat(row.get("location")).isEqualTo(INBOX.resolve("ACME/advice.csv").toAbsolutePath().toString());

        // once is enough: the file is no longer in .failed/
        assertProblem(post("/api/v1/admin/intake-failures/" + id + "/retry", ADMIN_KEY, null, new byte[0]),
                409, "retried already");
    }

    /**
     * A supplier whose files are taken once their done marker is there gets the marker with the file moved back; when
     * the marker cannot be made (here its name is too long for the file system), nothing is moved: a file back in the
     * inbox without its marker would never be taken, and the retry's mark rolled back would leave no second try.
     */
    @Test
    void aFailedDropWhoseDoneMarkerCannotBeMadeStaysWhereItIsForTheNextTry() throws Exception {
        Path failedFolder = Files.createDirectories(INBOX.resolve("GLOBEX/.failed"));
        String name = "m".repeat(250) + ".json"; // 255 bytes: its marker's name, 260, is longer than the system allows
        Path failed = Files.write(failedFolder.resolve(name), "{}".getBytes(StandardCharsets.UTF_8));
        long id = jdbc.queryForObject("INSERT INTO intake_failure (supplier, source, file_name, size, outcome, reason,"
                + " location) VALUES ('GLOBEX', 'file-drop', ?, 2, 'failed', 'disk full', ?) RETURNING id", Long.class,
                name, failed.toAbsolutePath().toString());

        assertProblem(post("/api/v1/admin/intake-failures/" + id + "/retry", ADMIN_KEY, null, new byte[0]), 409,
                "its done marker cannot be made");
        assertThat(failed).as("still in .failed/").exists();
        assertThat(INBOX.resolve("GLOBEX").resolve(name)).doesNotExist();
        assertThat(rows().get(0).get("retried_at")).as("no retry marked").isNull();
    }

    @Test
    void aRejectedFileOrAFailedFileThatIsGoneIsNotRetried() throws Exception {
        drop("ACME", "bad|name.csv", ADVICE);
        awaitRows(1);
        long rejected = (Long) rows().get(0).get("id");
        assertProblem(post("/api/v1/admin/intake-failures/" + rejected + "/retry", ADMIN_KEY, null, new byte[0]),
                409, "was rejected, which no retry fixes");

        failJobInserts();
        drop("ACME", "advice.csv", ADVICE);
        awaitFiles(INBOX.resolve("ACME/.failed"), 1);
        awaitRows(2);
        long failed = (Long) rows().get(1).get("id");
        removeFaults();
        Files.delete(filesIn(INBOX.resolve("ACME/.failed")).get(0));
        assertProblem(post("/api/v1/admin/intake-failures/" + failed + "/retry", ADMIN_KEY, null, new byte[0]),
                409, "the file is gone");
        assertThat(rows().get(1).get("retried_at")).isNull();

        assertThat(post("/api/v1/admin/intake-failures/999999/retry", ADMIN_KEY, null, new byte[0]).statusCode())
                .isEqualTo(404);
    }

    @Test
    void anHttpPushRefusedByIntakeIsRecordedWithNoPlaceAndCounted() throws Exception {
        double before = intakeCount("http", "rejected");
        HttpResponse<String> refused = post("/api/v1/suppliers/ACME/files", ACME_KEY, "application/octet-stream",
                ADVICE,
                "X-File-Name", "a|b.csv");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);

        assertThat(rows()).singleElement().satisfies(row -> {
            assertThat(row).containsEntry("supplier", "ACME").containsEntry("source", "http")
                    .containsEntry("file_name", "a|b.csv").containsEntry("outcome", "rejected");
            assertThat((String) row.get("reason")).contains("the file name contains '|'");
            assertThat(row.get("location")).isNull();
        });
        assertThat(intakeCount("http", "rejected")).isEqualTo(before + 1);
    }
}
