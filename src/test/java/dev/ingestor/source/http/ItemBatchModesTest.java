package dev.ingestor.source.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * An item batch is the record itself in both modes: applied while its caller waits, or taken by the stages (bulk).
 * The suppliers here have file layouts of their own (a records path, German dates and numbers, constants and
 * defaults); none of it may touch their item batches, and an item that is not an object is that one item, not the
 * batch. The same items give the same outcomes and the same items either way.
 */
class ItemBatchModesTest extends IngestorTestSupport {

    /**
     * First an item that is not an object; then an item with a decimal quantity written with a zero ({@code 10.0},
     * kept as {@code 1E+1} in canonical form) and a version; then one with an ISO date and no quantity.
     */
    private static String batch(String prefix) {
        return """
                {"items": [
                  "not an object",
                  {"source_id": "%1$s-1", "source_version": 5, "sku": "A", "quantity": 10.0,
                   "delivery_date": "2026-12-01"},
                  {"source_id": "%1$s-2", "sku": "B", "delivery_date": "2026-12-02"}
                ]}""".formatted(prefix);
    }

    @Test
    void aBatchGivesTheSameOutcomesAppliedAtOnceOrByTheStagesWhateverItsSuppliersFileLayout() throws Exception {
        for (String supplier : List.of("ACME", "HANSA", "ORBIT", "PLAIN")) {
            String path = "/api/v1/suppliers/" + supplier + "/items";
            String syncPrefix = supplier + "-sync-" + UUID.randomUUID();
            String bulkPrefix = supplier + "-bulk-" + UUID.randomUUID();

            HttpResponse<String> sync = post(path, ADMIN_KEY, "application/json",
                    batch(syncPrefix).getBytes(StandardCharsets.UTF_8), "Idempotency-Key", syncPrefix);
            assertThat(sync.statusCode()).as("%s: %s", supplier, sync.body()).isEqualTo(200);
            List<String> syncOutcomes = new ArrayList<>();
            JSON.readTree(sync.body()).get("items").forEach(item -> syncOutcomes.add(item.get("outcome").asString()));
            // the quantity that is missing is quarantined: no supplier's default fills an item's field
            assertThat(syncOutcomes).as(supplier).containsExactly("QUARANTINED", "ACCEPTED", "QUARANTINED");

            HttpResponse<String> bulk = post(path + "?mode=bulk", ADMIN_KEY, "application/json",
                    batch(bulkPrefix).getBytes(StandardCharsets.UTF_8), "Idempotency-Key", bulkPrefix);
            assertThat(bulk.statusCode()).as("%s: %s", supplier, bulk.body()).isEqualTo(202);
            String jobId = JSON.readTree(bulk.body()).get("id").asString();
            await().atMost(Duration.ofSeconds(30)).until(() -> !List.of("RECEIVED", "VALIDATING", "PROCESSING")
                    .contains(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?::uuid", String.class,
                            jobId)));
            Map<String, Object> job = jdbc.queryForMap("SELECT state, error, total, accepted, quarantined"
                    + " FROM import_job WHERE id = ?::uuid", jobId);
            assertThat(job).as(supplier).containsEntry("state", "COMPLETED_WITH_ERRORS").containsEntry("total", 3L)
                    .containsEntry("accepted", 1L).containsEntry("quarantined", 2L);
            assertThat(jdbc.queryForList("SELECT record_no FROM job_record WHERE job_id = ?::uuid ORDER BY record_no",
                    Long.class, jobId)).as(supplier).containsExactly(1L, 3L);

            for (String prefix : List.of(syncPrefix, bulkPrefix)) {
                Map<String, Object> item = jdbc.queryForMap("SELECT source_version, record::text AS record FROM item"
                        + " WHERE supplier = ? AND source_id = ?", supplier, prefix + "-1");
                assertThat(item.get("source_version")).as("%s, no supplier constant", prefix).isEqualTo(5L);
                JsonNode record = JSON.readTree((String) item.get("record"));
                assertThat(record.get("quantity").asLong()).as(prefix).isEqualTo(10);
                assertThat(record.get("delivery_date").asString()).as(prefix).isEqualTo("2026-12-01");
            }
        }
    }
}
