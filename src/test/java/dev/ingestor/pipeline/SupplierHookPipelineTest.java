package dev.ingestor.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.TestKafka;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The example supplier SPLITCO has its own route (routes/suppliers/SPLITCO.camel.yaml) that splits the column source_id
 * "A-17@3" into source_id and source_version: what it makes reaches Kafka, and a ref it cannot split quarantines
 * that record with the route's message, once, without a dead letter and without failing the job.
 */
class SupplierHookPipelineTest extends IngestorTestSupport {

    @Autowired
    ObjectMapper mapper;

    @Test
    void theHookSplitsAFieldAndARecordItCannotSplitIsQuarantinedWithItsMessage() throws Exception {
        String csv = """
                source_id,sku,quantity,delivery_date
                SP-1@3,SKU-1,5,2026-12-01
                SP-2,SKU-2,6,2026-12-01
                SP-3@1,SKU-3,7,2026-12-01
                """;
        drop("SPLITCO", "splitco-1.csv", csv.getBytes(StandardCharsets.UTF_8));
        await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM import_job WHERE supplier = 'SPLITCO' AND state IN ('COMPLETED', 'COMPLETED_WITH_ERRORS', 'FAILED')",
                Long.class) == 1);
        UUID job = jdbc.queryForObject("SELECT id FROM import_job WHERE supplier = 'SPLITCO'", UUID.class);

        Map<String, Object> row = jdbc
                .queryForMap("SELECT state, attempts, total, accepted, quarantined FROM import_job WHERE id = ?", job);
        assertThat(row).containsEntry("state", "COMPLETED_WITH_ERRORS").containsEntry("total", 3L)
                .containsEntry("accepted", 2L).containsEntry("quarantined", 1L);
        assertThat(((Number) row.get("attempts")).intValue())
                .as("one claim in each of the two stages: the hook's error retried nothing").isEqualTo(2);
        assertThat(jdbc.queryForList("SELECT reason FROM job_record WHERE job_id = ? AND outcome = 'QUARANTINED'",
                String.class, job))
                .containsExactly("line 3 hook map-SPLITCO failed: source_id 'SP-2' is not <item>@<version>");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM dead_letter", Long.class)).isZero();

        Map<String, JsonNode> records = recordsOnKafka(job);
        assertThat(records).containsOnlyKeys("SP-1", "SP-3");
        assertThat(records.get("SP-1").get("source_version").asLong()).isEqualTo(3);
        assertThat(records.get("SP-1").get("sku").asString()).isEqualTo("SKU-1");
        assertThat(records.get("SP-3").get("source_version").asLong()).isEqualTo(1);
    }

    /** The records published for the job, by source id. */
    private Map<String, JsonNode> recordsOnKafka(UUID job) {
        await().atMost(Duration.ofSeconds(30)).until(
                () -> jdbc.queryForObject("SELECT count(*) FROM outbox", Long.class) == 0);
        Map<String, JsonNode> records = new TreeMap<>();
        List<JsonNode> events = TestKafka.readAll("ingestor.items", Duration.ofSeconds(1)).stream()
                .map(ConsumerRecord::value).map(this::json)
                .filter(e -> job.toString().equals(e.path("job_id").asString())).toList();
        events.forEach(e -> records.put(e.get("source_id").asString(), e.get("record")));
        return records;
    }

    private JsonNode json(String text) {
        try {
            return mapper.readTree(text);
        } catch (JacksonException e) {
            throw new IllegalStateException(e);
        }
    }
}
