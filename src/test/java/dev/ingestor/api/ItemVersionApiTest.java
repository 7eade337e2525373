package dev.ingestor.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * GET /api/v1/suppliers/{supplier}/items/{sourceId}/versions: every effect on an item kept with it, newest first,
 * paged, and reachable only by its own supplier (and the admin), on the real server and PostgreSQL.
 */
class ItemVersionApiTest extends IngestorTestSupport {

    private static final String VERSIONS = "/api/v1/suppliers/ACME/items/V-1/versions";

    private void push(String supplier, String key, String items) throws Exception {
        HttpResponse<String> response = post("/api/v1/suppliers/" + supplier + "/items", key, "application/json",
                ("{\"items\": [" + items + "]}").getBytes(StandardCharsets.UTF_8), "Idempotency-Key",
                UUID.randomUUID().toString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    }

    private static String record(long version, int quantity) {
        return "{\"source_id\": \"V-1\", \"source_version\": " + version + ", \"sku\": \"S\", \"quantity\": " + quantity
                + ", \"delivery_date\": \"2026-12-01\"}";
    }

    /**
     * A field name over 50,000 characters is more than Jackson's readers take (this API's, a consumer of the item's
     * event): an item batch refuses it, and a file's record with it is quarantined naming that limit, never stored as
     * an item whose history could not be read back (a 500).
     */
    @Test
    void aFilesRecordWithAFieldNameOverTheReadersLimitIsQuarantinedNotStored() throws Exception {
        String record = "{\"source_id\": \"%s\", \"sku\": \"S\", \"quantity\": 1, \"delivery_date\": \"2026-12-01\"%s}";
        UUID job = intake("GLOBEX", "long-name.json",
                "[" + record.formatted("L-1", ", \"" + "n".repeat(50_001) + "\": 1")
                        + ",\n" + record.formatted("L-2", "") + "]");
        await().atMost(Duration.ofSeconds(30)).until(() -> List.of("COMPLETED", "COMPLETED_WITH_ERRORS", "FAILED",
                "REJECTED")
                .contains(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?", String.class, job)));
        assertProblem(get("/api/v1/suppliers/GLOBEX/items/L-1/versions", GLOBEX_KEY), 404, "no item 'L-1'");
        assertThat(jdbc.queryForMap("SELECT state, accepted, quarantined FROM import_job WHERE id = ?", job))
                .containsEntry("state", "COMPLETED_WITH_ERRORS").containsEntry("accepted", 1L)
                .containsEntry("quarantined", 1L);
        assertThat(jdbc.queryForObject("SELECT reason FROM job_record WHERE job_id = ?", String.class, job))
                .contains("field name 'nnn").contains("is longer than 50000 bytes");
    }

    @Test
    void everyEffectIsKeptNewestFirstWithItsEventId() throws Exception {
        push("ACME", ACME_KEY, record(1, 1));
        push("ACME", ACME_KEY, record(2, 2));
        push("ACME", ACME_KEY, record(2, 2)); // a replay: no version of its own
        push("ACME", ACME_KEY, "{\"source_id\": \"V-1\", \"source_version\": 3, \"deleted\": true}");
        push("ACME", ACME_KEY, record(4, 4));
        push("GLOBEX", GLOBEX_KEY, record(9, 9)); // the same source id of another supplier

        HttpResponse<String> response = get(VERSIONS, ACME_KEY);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode page = JSON.readTree(response.body());
        assertThat(page.get("total").asLong()).isEqualTo(4);
        List<String> versions = new ArrayList<>();
        page.get("items")
                .forEach(v -> versions.add("r" + v.get("revision").asLong() + " v" + v.get("sourceVersion").asLong()
                        + " " + v.get("outcome").asString() + " " + v.get("state").asString() + " q"
                        + v.get("record").path("quantity").asString("-")));
        assertThat(versions).containsExactly("r4 v4 UPDATED ACTIVE q4", "r3 v3 DELETED INACTIVE q-",
                "r2 v2 UPDATED ACTIVE q2",
                "r1 v1 ACCEPTED ACTIVE q1");
        // each version names the event that told Kafka of it
        List<String> eventIds = new ArrayList<>();
        page.get("items").forEach(v -> eventIds.add(v.get("eventId").asString()));
        assertThat(eventIds).containsExactlyElementsOf(jdbc.queryForList("SELECT event_id::text FROM outbox_all"
                + " WHERE event_key = 'ACME:V-1' ORDER BY id DESC", String.class));
        assertThat(page.get("items").get(0).get("jobId").asString()).isEqualTo(jdbc.queryForObject(
                "SELECT job_id::text FROM item WHERE supplier = 'ACME' AND source_id = 'V-1'", String.class));

        // paged like every list
        JsonNode second = JSON.readTree(get(VERSIONS + "?page=1&size=3", ACME_KEY).body());
        assertThat(second.get("items")).hasSize(1);
        assertThat(second.get("items").get(0).get("revision").asLong()).isEqualTo(1);
        assertThat(second.get("total").asLong()).isEqualTo(4);
        assertThat(second.get("size").asInt()).isEqualTo(3);
        assertProblem(get(VERSIONS + "?size=5000", ACME_KEY), 400, "size");

        // a supplier reaches only its own items; the admin reaches all
        assertProblem(get(VERSIONS, GLOBEX_KEY), 404, "no supplier 'ACME'");
        assertThat(JSON.readTree(get("/api/v1/suppliers/GLOBEX/items/V-1/versions", GLOBEX_KEY).body())
                .get("total").asLong()).isEqualTo(1);
        assertThat(get(VERSIONS, ADMIN_KEY).statusCode()).isEqualTo(200);
        assertProblem(get("/api/v1/suppliers/ACME/items/NOPE/versions", ACME_KEY), 404, "no item 'NOPE'");
    }
}
