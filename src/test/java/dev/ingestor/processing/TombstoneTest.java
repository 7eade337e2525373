package dev.ingestor.processing;

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
 * Tombstones (docs/design.md, Version rules): a record marked deleted retires its item (INACTIVE, outcome DELETED,
 * one event with an id of its own), a repeated or older record is a REPLAY, a later higher version revives the
 * item; applied at once and by the stages alike, on the real server and PostgreSQL.
 */
class TombstoneTest extends IngestorTestSupport {

    private static final String CSV_HEADER = "source_id,source_version,sku,quantity,delivery_date,deleted\n";

    private List<String> outcomes(String body) throws Exception {
        HttpResponse<String> response = post("/api/v1/suppliers/ACME/items", ACME_KEY, "application/json",
                body.getBytes(StandardCharsets.UTF_8), "Idempotency-Key", UUID.randomUUID().toString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        List<String> outcomes = new ArrayList<>();
        JSON.readTree(response.body()).get("items").forEach(item -> outcomes.add(item.get("outcome").asString()));
        return outcomes;
    }

    private String state(String sourceId) {
        return jdbc.queryForObject("SELECT state || ' v' || coalesce(source_version::text, '-') || ' r' || revision"
                + " FROM item WHERE supplier = 'ACME' AND source_id = ?", String.class, sourceId);
    }

    /** The item's events bound for Kafka, in the order written: "outcome rN". */
    private List<String> events(String sourceId) {
        return jdbc.queryForList("SELECT payload::jsonb->>'outcome' || ' r' || (payload::jsonb->>'revision')"
                + " FROM outbox_all WHERE topic = 'ingestor.items' AND event_key = ? ORDER BY id", String.class,
                "ACME:" + sourceId);
    }

    private long distinctEventIds(String sourceId) {
        return jdbc.queryForObject("SELECT count(DISTINCT event_id) FROM outbox_all WHERE event_key = ?"
                + " AND (payload::jsonb->>'event_id')::uuid = event_id", Long.class, "ACME:" + sourceId);
    }

    @Test
    void aTombstoneRetiresTheItemAReplayChangesNothingAndAHigherVersionRevivesIt() throws Exception {
        assertThat(outcomes("""
                {"items": [
                  {"source_id": "T-1", "source_version": 1, "sku": "S", "quantity": 1, "delivery_date": "2026-12-01"},
                  {"source_id": "U-1", "sku": "S", "quantity": 1, "delivery_date": "2026-12-01"}
                ]}""")).containsExactly("ACCEPTED", "ACCEPTED");

        HttpResponse<String> deletes = post("/api/v1/suppliers/ACME/items?mode=upsert", ACME_KEY, "application/json",
                """
                        {"items": [
                          {"source_id": "T-1", "source_version": 2, "deleted": true},
                          {"source_id": "T-2", "source_version": 5, "deleted": true, "sku": "ignored"},
                          {"source_id": "U-1", "deleted": "true"},
                          {"source_id": "T-9", "deleted": "maybe"}
                        ]}""".getBytes(StandardCharsets.UTF_8), "Idempotency-Key", UUID.randomUUID().toString());
        JsonNode answer = JSON.readTree(deletes.body());
        List<String> deleted = new ArrayList<>();
        answer.get("items").forEach(item -> deleted.add(item.get("outcome").asString()));
        assertThat(deleted).containsExactly("DELETED", "DELETED", "DELETED", "QUARANTINED");
        assertThat(answer.get("items").get(3).get("reason").asString())
                .contains("deleted: 'maybe' is neither true nor false");
        // the job counts keep their shape: a DELETED is counted with the updates
        assertThat(answer.get("counts").get("updated").asInt()).isEqualTo(3);
        assertThat(answer.get("counts").get("accepted").asInt()).isZero();
        assertThat(state("T-1")).isEqualTo("INACTIVE v2 r2");
        assertThat(state("T-2")).as("a tombstone for an unknown item records it, retired").isEqualTo("INACTIVE v5 r1");
        assertThat(state("U-1")).isEqualTo("INACTIVE v- r2");
        assertThat(events("T-1")).containsExactly("ACCEPTED r1", "DELETED r2");
        assertThat(events("T-2")).containsExactly("DELETED r1");
        assertThat(distinctEventIds("T-1")).as("each effect its own event id").isEqualTo(2);
        JsonNode tombstoneEvent = JSON
                .readTree(jdbc.queryForObject("SELECT payload FROM outbox_all WHERE event_key = 'ACME:T-1'"
                        + " ORDER BY id DESC LIMIT 1", String.class));
        assertThat(tombstoneEvent.get("record").get("deleted").asBoolean()).isTrue();
        assertThat(tombstoneEvent.get("source_version").asLong()).isEqualTo(2);
        long rows = jdbc.queryForObject("SELECT count(*) FROM outbox_all", Long.class);

        // the same tombstones again, and the older creates arriving late: replays, no event
        assertThat(outcomes("""
                {"items": [
                  {"source_id": "T-1", "source_version": 2, "deleted": true},
                  {"source_id": "T-2", "source_version": 4, "sku": "S", "quantity": 1, "delivery_date": "2026-12-01"},
                  {"source_id": "U-1", "deleted": true}
                ]}""")).containsExactly("REPLAY", "REPLAY", "REPLAY");
        assertThat(outcomes("""
                {"items": [
                  {"source_id": "T-1", "source_version": 1, "sku": "S", "quantity": 1, "delivery_date": "2026-12-01"},
                  {"source_id": "T-2", "source_version": 5, "sku": "S", "quantity": 1, "delivery_date": "2026-12-01"}
                ]}""")).containsExactly("REPLAY", "REPLAY");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_all", Long.class)).isEqualTo(rows);
        assertThat(state("T-1")).isEqualTo("INACTIVE v2 r2");

        // a later higher version revives the item
        assertThat(outcomes("""
                {"items": [
                  {"source_id": "T-1", "source_version": 3, "sku": "S", "quantity": 4, "delivery_date": "2026-12-01"},
                  {"source_id": "T-2", "source_version": 6, "sku": "S", "quantity": 1, "delivery_date": "2026-12-01"}
                ]}""")).containsExactly("UPDATED", "UPDATED");
        assertThat(state("T-1")).isEqualTo("ACTIVE v3 r3");
        assertThat(state("T-2")).isEqualTo("ACTIVE v6 r2");
        assertThat(events("T-1")).containsExactly("ACCEPTED r1", "DELETED r2", "UPDATED r3");
        assertThat(distinctEventIds("T-1")).isEqualTo(3);
    }

    @Test
    void aDroppedFileDeletesReplaysAndRevivesThroughTheStages() throws Exception {
        UUID created = dropAndAwait("create.csv", CSV_HEADER
                + "J-1,1,SKU-1,1,2026-12-01,\n"
                + "J-2,1,SKU-2,1,2026-12-01,false\n", "COMPLETED");
        assertThat(counts(created)).isEqualTo("2/2/0/0/0");

        UUID deletes = dropAndAwait("delete.csv", CSV_HEADER
                + "J-1,2,,,,true\n"
                + "J-3,1,,,,TRUE\n", "COMPLETED");
        assertThat(counts(deletes)).as("DELETED counted with the updates").isEqualTo("2/0/2/0/0");
        assertThat(state("J-1")).isEqualTo("INACTIVE v2 r2");
        assertThat(state("J-3")).isEqualTo("INACTIVE v1 r1");

        UUID replays = dropAndAwait("delete-again.csv", CSV_HEADER
                + "J-1,2,,,,true\n"
                + "J-1,1,SKU-1,1,2026-12-01,\n"
                + "J-3,1,SKU-3,1,2026-12-01,\n", "COMPLETED");
        assertThat(counts(replays)).isEqualTo("3/0/0/3/0");

        UUID revives = dropAndAwait("revive.csv", CSV_HEADER
                + "J-1,3,SKU-1,7,2026-12-01,\n", "COMPLETED");
        assertThat(counts(revives)).isEqualTo("1/0/1/0/0");
        assertThat(state("J-1")).isEqualTo("ACTIVE v3 r3");

        // the events bound for Kafka: one per effect, each with an id of its own, none for the replays
        assertThat(events("J-1")).containsExactly("ACCEPTED r1", "DELETED r2", "UPDATED r3");
        assertThat(events("J-3")).containsExactly("DELETED r1");
        assertThat(distinctEventIds("J-1")).isEqualTo(3);
        List<Map<String, Object>> byJob = jdbc.queryForList("SELECT payload::jsonb->>'job_id' AS job,"
                + " payload::jsonb->>'outcome' AS outcome FROM outbox_all WHERE event_key = 'ACME:J-1' ORDER BY id");
        assertThat(byJob).extracting(row -> row.get("job")).containsExactly(created.toString(), deletes.toString(),
                revives.toString());
        // and the item's history holds the same effects, written with them
        assertThat(jdbc.queryForList("SELECT outcome || ' r' || revision || ' ' || state FROM item_version"
                + " WHERE supplier = 'ACME' AND source_id = 'J-1' ORDER BY revision", String.class))
                .containsExactly("ACCEPTED r1 ACTIVE", "DELETED r2 INACTIVE", "UPDATED r3 ACTIVE");
    }

    private UUID dropAndAwait(String name, String content, String state) throws Exception {
        drop("ACME", name, content.getBytes(StandardCharsets.UTF_8));
        await().atMost(Duration.ofSeconds(30)).until(() -> state.equals(jdbc.query(
                "SELECT state FROM import_job WHERE supplier = 'ACME' AND file_name = ?",
                rs -> rs.next() ? rs.getString(1) : null, name)));
        return jdbc.queryForObject("SELECT id FROM import_job WHERE supplier = 'ACME' AND file_name = ?", UUID.class,
                name);
    }

    private String counts(UUID job) {
        return jdbc.queryForObject(
                "SELECT total || '/' || accepted || '/' || updated || '/' || replayed || '/' || quarantined"
                        + " FROM import_job WHERE id = ?",
                String.class, job);
    }
}
