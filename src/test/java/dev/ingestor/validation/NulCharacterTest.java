package dev.ingestor.validation;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ingestor.intake.IntakeHeaders;
import dev.ingestor.job.IntakeResult;
import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * PostgreSQL text and jsonb cannot hold U+0000: a record carrying it in a field name or value is quarantined
 * with a reason, and the quarantine row itself is storable (the NUL written as an escape).
 */
class NulCharacterTest extends IngestorTestSupport {

    private static final String NUL_NAME = "{\"source_id\": \"N-1\", \"sku\": \"S\", \"quantity\": 1,"
            + " \"delivery_date\": \"2026-12-01\", \"col\\u0000our\": \"red\"}";
    private static final String NUL_VALUE = "{\"source_id\": \"N-2\", \"sku\": \"S\\u0000\", \"quantity\": 1,"
            + " \"delivery_date\": \"2026-12-01\"}";
    private static final String GOOD = "{\"source_id\": \"N-3\", \"sku\": \"S\", \"quantity\": 1, \"delivery_date\": \"2026-12-01\"}";

    @Test
    void anItemBatchWithNulInAFieldNameQuarantinesThatItem() throws Exception {
        HttpResponse<String> response = post("/api/v1/suppliers/ACME/items", ACME_KEY, "application/json",
                ("{\"items\": [" + NUL_NAME + ", " + NUL_VALUE + ", " + GOOD + "]}").getBytes(StandardCharsets.UTF_8),
                "Idempotency-Key", UUID.randomUUID().toString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode items = JSON.readTree(response.body()).get("items");
        assertThat(items.get(0).get("outcome").asText()).isEqualTo("QUARANTINED");
        assertThat(items.get(0).get("reason").asText()).contains("contains the NUL character U+0000 (PostgreSQL cannot store it)");
        assertThat(items.get(1).get("outcome").asText()).isEqualTo("QUARANTINED");
        assertThat(items.get(1).get("reason").asText()).contains("sku: contains the control character U+0000");
        assertThat(items.get(2).get("outcome").asText()).isEqualTo("ACCEPTED");
        assertThat(jdbc.queryForList("SELECT fields ->> 'col\\u0000our' FROM job_record ORDER BY record_no", String.class))
                .containsExactly("red", null);
    }

    @Test
    void aJsonFileWithNulInAFieldNameQuarantinesThatRecordNotTheJob() {
        UUID job = ingest("GLOBEX", "nul.json", "[" + NUL_NAME + ",\n" + GOOD + "]");
        Map<String, Object> done = awaitJob(job);
        assertThat(done).containsEntry("state", "COMPLETED_WITH_ERRORS").containsEntry("accepted", 1L).containsEntry("quarantined", 1L);
        assertThat(jdbc.queryForObject("SELECT reason FROM job_record WHERE job_id = ?", String.class, job))
                .contains("NUL character U+0000");
    }

    @Test
    void aCsvFileWithNulBytesQuarantinesThoseRecords() {
        String csv = "source_id,sku,quantity,delivery_date,col\u0000our\n"
                + "C-1,S,1,2026-12-01,red\n";
        UUID header = ingest("ACME", "nul-header.csv", csv);
        assertThat(awaitJob(header)).containsEntry("state", "COMPLETED_WITH_ERRORS").containsEntry("quarantined", 1L);
        UUID value = ingest("ACME", "nul-value.csv", "source_id,sku,quantity,delivery_date\nC-2,S\u0000X,1,2026-12-01\nC-3,S,1,2026-12-01\n");
        assertThat(awaitJob(value)).containsEntry("state", "COMPLETED_WITH_ERRORS").containsEntry("accepted", 1L)
                .containsEntry("quarantined", 1L);
    }

    /**
     * An unpaired UTF-16 surrogate is stored by PostgreSQL as '?': two different ids would become one row
     * (the upsert failed with "cannot affect row a second time"), and a single one came back REPLAY although
     * it was written. Such a record is quarantined before it reaches the item table.
     */
    @Test
    void anItemBatchWithUnpairedSurrogatesQuarantinesThoseItems() throws Exception {
        String body = "{\"items\": ["
                + "{\"source_id\": \"n8?\", \"sku\": \"S\", \"quantity\": 1, \"delivery_date\": \"2026-12-01\"},"
                + "{\"source_id\": \"n8\\udbff\", \"sku\": \"S\", \"quantity\": 1, \"delivery_date\": \"2026-12-01\"},"
                + "{\"source_id\": \"n9\", \"sku\": \"S\", \"quantity\": 1, \"delivery_date\": \"2026-12-01\", \"col\\ud800\": \"red\"},"
                + "{\"source_id\": \"n10\", \"sku\": \"S\", \"quantity\": 1, \"delivery_date\": \"2026-12-01\", \"note\": \"\\udc00x\"},"
                + "{\"source_id\": \"n11\", \"sku\": \"S\\ud83d\\ude00\", \"quantity\": 1, \"delivery_date\": \"2026-12-01\"}"
                + "]}";
        HttpResponse<String> response = post("/api/v1/suppliers/ACME/items", ACME_KEY, "application/json",
                body.getBytes(StandardCharsets.UTF_8), "Idempotency-Key", UUID.randomUUID().toString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode items = JSON.readTree(response.body()).get("items");
        assertThat(items.get(0).get("outcome").asText()).isEqualTo("ACCEPTED");
        assertThat(items.get(1).get("outcome").asText()).isEqualTo("QUARANTINED");
        assertThat(items.get(1).get("source_id").asText()).isEqualTo("n8\\uDBFF");
        assertThat(items.get(1).get("reason").asText())
                .contains("source_id: contains an unpaired UTF-16 surrogate U+DBFF at character 3");
        assertThat(items.get(2).get("outcome").asText()).isEqualTo("QUARANTINED");
        assertThat(items.get(2).get("reason").asText())
                .contains("field name 'col\\uD800' contains an unpaired UTF-16 surrogate U+D800 at character 4");
        assertThat(items.get(3).get("outcome").asText()).isEqualTo("QUARANTINED");
        assertThat(items.get(3).get("reason").asText()).contains("note: contains an unpaired UTF-16 surrogate U+DC00 at character 1");
        // a surrogate pair is a real character (an emoji) and is taken
        assertThat(items.get(4).get("outcome").asText()).isEqualTo("ACCEPTED");
        assertThat(jdbc.queryForList("SELECT source_id FROM item ORDER BY source_id", String.class))
                .containsExactly("n11", "n8?");
        assertThat(jdbc.queryForObject("SELECT record::jsonb ->> 'sku' FROM item WHERE source_id = 'n11'", String.class)).isEqualTo("S\ud83d\ude00");
        // the quarantine rows keep what was sent, the surrogate written as an escape
        assertThat(jdbc.queryForList("SELECT source_id FROM job_record ORDER BY record_no", String.class))
                .containsExactly("n8\\uDBFF", "n9", "n10");
    }

    @Test
    void aSingleUnpairedSurrogateIdIsQuarantinedNotReportedAsReplay() throws Exception {
        String body = "{\"items\": [{\"source_id\": \"n8\\ud800\", \"sku\": \"S\", \"quantity\": 1,"
                + " \"delivery_date\": \"2026-12-01\"}]}";
        HttpResponse<String> response = post("/api/v1/suppliers/ACME/items", ACME_KEY, "application/json",
                body.getBytes(StandardCharsets.UTF_8), "Idempotency-Key", UUID.randomUUID().toString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode result = JSON.readTree(response.body());
        assertThat(result.get("items").get(0).get("outcome").asText()).isEqualTo("QUARANTINED");
        assertThat(result.get("counts").get("replayed").asLong()).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item", Long.class)).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox", Long.class)).isZero();
    }

    @Test
    void aDroppedJsonFileWithUnpairedSurrogatesQuarantinesThoseRecords() throws Exception {
        String content = "[{\"source_id\": \"f8?\", \"sku\": \"S\", \"quantity\": 1, \"delivery_date\": \"2026-12-01\"},\n"
                + "{\"source_id\": \"f8\\udbff\", \"sku\": \"S\", \"quantity\": 1, \"delivery_date\": \"2026-12-01\"},\n"
                + "{\"source_id\": \"f9\", \"sku\": \"S\", \"quantity\": 1, \"delivery_date\": \"2026-12-01\", \"x\\ud800\": 1}]";
        drop("GLOBEX", "surrogates.json", content.getBytes(StandardCharsets.UTF_8));
        java.nio.file.Files.createFile(INBOX.resolve("GLOBEX/surrogates.json.done"));
        awaitJobs(1);
        UUID job = jdbc.queryForObject("SELECT id FROM import_job", UUID.class);
        Map<String, Object> done = awaitJob(job);
        assertThat(done).as(String.valueOf(done.get("error"))).containsEntry("state", "COMPLETED_WITH_ERRORS")
                .containsEntry("accepted", 1L).containsEntry("quarantined", 2L);
        assertThat(jdbc.queryForList("SELECT reason FROM job_record WHERE job_id = ? ORDER BY record_no", String.class, job))
                .satisfiesExactly(
                        r -> assertThat(r).contains("source_id: contains an unpaired UTF-16 surrogate U+DBFF at character 3"),
                        r -> assertThat(r).contains("field name 'x\\uD800' contains an unpaired UTF-16 surrogate U+D800 at character 2"));
        assertThat(jdbc.queryForList("SELECT source_id FROM item", String.class)).containsExactly("f8?");
    }

    private UUID ingest(String supplier, String name, String content) {
        IntakeResult result = producer.requestBodyAndHeaders("direct:intake", content.getBytes(StandardCharsets.UTF_8),
                Map.of(IntakeHeaders.SUPPLIER, supplier, IntakeHeaders.FILE_NAME, name, IntakeHeaders.SOURCE, "test"),
                IntakeResult.class);
        return result.job().id();
    }

    private Map<String, Object> awaitJob(UUID id) {
        await().atMost(Duration.ofSeconds(30)).until(() -> List.of("COMPLETED", "COMPLETED_WITH_ERRORS", "FAILED", "REJECTED")
                .contains(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, id)));
        return jdbc.queryForMap("SELECT * FROM import_job WHERE id = ?", id);
    }
}
