package dev.ingestor.record;

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
        HttpResponse<String> response = post("/api/v1/partners/ACME/items", ACME_KEY, "application/json",
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
