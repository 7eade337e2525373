package dev.ingestor.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A dropped file with one record over {@code ingestor.intake.max-record-size} (64 KB by default) ends with its other
 * records applied and the big one quarantined naming the limit, kept and shown by its first characters only.
 */
class RecordLimitsPipelineTest extends IngestorTestSupport {

    @Test
    void aDroppedFileWithOneHugeValueAppliesTheOthersAndQuarantinesItNamingTheLimit() throws Exception {
        String huge = ("v".repeat(999) + "\n").repeat(300); // 300,000 characters over 300 lines
        String file = "source_id,sku,quantity,delivery_date,note\n"
                + "BIG-1,SKU-1,1,2026-12-01,\n"
                + "BIG-2,SKU-2,2,2026-12-01,\"" + huge + "\"\n"
                + "BIG-3,SKU-3,3,2026-12-01,\n";
        drop("ACME", "big-record.csv", file.getBytes(StandardCharsets.UTF_8));
        await().atMost(Duration.ofSeconds(30)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM import_job WHERE supplier = 'ACME' AND state = 'COMPLETED_WITH_ERRORS'",
                Long.class) == 1);
        Map<String, Object> job = jdbc.queryForMap("SELECT * FROM import_job WHERE supplier = 'ACME'");
        assertThat(job).containsEntry("total", 3L).containsEntry("accepted", 2L).containsEntry("quarantined", 1L);
        assertThat(jdbc.queryForList("SELECT source_id FROM item ORDER BY source_id", String.class))
                .containsExactly("BIG-1", "BIG-3");

        UUID id = (UUID) job.get("id");
        JsonNode records = JSON.readTree(get("/api/v1/jobs/" + id + "/records?outcome=QUARANTINED").body());
        assertThat(records.path("total").asLong()).isEqualTo(1);
        JsonNode big = records.path("items").get(0);
        assertThat(big.path("reason").asString()).isEqualTo("line 3 is larger than the limit of 65536 characters"
                + " (ingestor.intake.max-record-size): 300027 characters; only its first 1000 are kept");
        assertThat(big.path("line").asLong()).isEqualTo(3);
        assertThat(big.path("fields").path("first_characters").asString()).startsWith("BIG-2,SKU-2,2,2026-12-01,vvv");
        assertThat(jdbc.queryForObject("SELECT max(length(fields::text)) FROM job_record WHERE job_id = ?",
                Integer.class, id))
                .isLessThan(1100);
        assertThat(jdbc.queryForList("SELECT line FROM job_record WHERE job_id = ?", Long.class, id))
                .isEqualTo(List.of(3L));
    }
}
