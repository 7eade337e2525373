package dev.ingestor.source.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A batch that runs longer than the in-flight lease (3 s in tests) keeps its key: the lease is renewed while
 * it runs, so a retry meanwhile gets 409, and the first caller gets its 200, never a 500.
 */
class RequestKeyLeaseTest extends IngestorTestSupport {

    private static final String ITEMS = "/api/v1/suppliers/ACME/items";

    @Autowired
    javax.sql.DataSource dataSource;

    private static String batch(String id, int version) {
        return "{\"items\": [{\"source_id\": \"" + id + "\", \"source_version\": " + version
                + ", \"sku\": \"S\", \"quantity\": 1, \"delivery_date\": \"2026-12-01\"}]}";
    }

    private HttpRequest request(String key, String body) {
        return request(key, body, Duration.ofSeconds(30));
    }

    private HttpRequest request(String key, String body, Duration timeout) {
        return HttpRequest.newBuilder(uri(ITEMS)).timeout(timeout)
                .header("X-Api-Key", ACME_KEY).header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8)).build();
    }

    @Autowired
    RequestKeyStore keys;

    /**
     * The requests running here have their leases renewed together, one statement a period: when the requests hold
     * the connection pool, the renewals wait for one connection once, not once per request one after the other. A
     * statement trigger on http_request counts the renewing statements in a sequence.
     */
    @Test
    void theLeasesOfRequestsRunningHereAreRenewedInOneStatement() throws Exception {
        jdbc.execute("DROP SEQUENCE IF EXISTS renewals");
        jdbc.execute("CREATE SEQUENCE renewals");
        jdbc.execute("CREATE FUNCTION count_renewals() RETURNS trigger AS $$ BEGIN PERFORM nextval('renewals');"
                + " RETURN NULL; END $$ LANGUAGE plpgsql");
        jdbc.execute("CREATE TRIGGER count_renewals AFTER UPDATE ON http_request FOR EACH STATEMENT"
                + " EXECUTE FUNCTION count_renewals()");
        java.util.List<AutoCloseable> held = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 8; i++) {
                String key = "renewed-" + i + "-" + java.util.UUID.randomUUID();
                jdbc.update(
                        "INSERT INTO http_request (supplier, idempotency_key, fingerprint, state, owner, lease_until,"
                                + " expires_at) VALUES ('ACME', ?, repeat('a', 64), 'IN_PROGRESS', 'test/' || ?,"
                                + " now() + interval '3 seconds', now() + interval '1 day')",
                        key, key);
                held.add(keys.keepAlive(new RequestClaim("ACME", key, "test/" + key)));
            }
            long before = jdbc.queryForObject("SELECT nextval('renewals')", Long.class);
            // the lease is 3 s here, renewed every second
            Thread.sleep(2500);
            long statements = jdbc.queryForObject("SELECT nextval('renewals')", Long.class) - before - 1;
            assertThat(statements).as("renewing statements in 2.5 s for 8 requests").isBetween(1L, 3L);
            assertThat(jdbc.queryForObject("SELECT count(*) FROM http_request WHERE idempotency_key LIKE 'renewed-%'"
                    + " AND lease_until > now() + interval '1 second'", Long.class)).isEqualTo(8);
        } finally {
            for (AutoCloseable renewal : held) {
                renewal.close();
            }
            jdbc.execute("DROP TRIGGER count_renewals ON http_request");
            jdbc.execute("DROP FUNCTION count_renewals()");
            jdbc.execute("DROP SEQUENCE renewals");
        }
    }

    @Test
    void aBatchLongerThanTheLeaseKeepsItsKeyAndARetryMeanwhileGets409() throws Exception {
        assertThat(http.send(request("lease-0", batch("L-1", 1)), HttpResponse.BodyHandlers.ofString()).statusCode())
                .isEqualTo(200);
        CompletableFuture<HttpResponse<String>> first;
        try (Connection lock = dataSource.getConnection()) {
            lock.setAutoCommit(false);
            // the batch below waits on this row lock, past its lease
            lock.createStatement()
                    .execute("SELECT * FROM item WHERE supplier = 'ACME' AND source_id = 'L-1' FOR UPDATE");
            first = http.sendAsync(request("lease-1", batch("L-1", 2)), HttpResponse.BodyHandlers.ofString());
            // the request outlives its first lease (ingestor.http.in-flight-lease, 3 s here): its lease was renewed
            // past it, which is what keeps the key while it waits
            // (no row yet while the request is on its way to its claim)
            await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForList("SELECT lease_until > created_at"
                    + " + interval '3 seconds' FROM http_request WHERE idempotency_key = 'lease-1' AND state = 'IN_PROGRESS'",
                    Boolean.class).contains(true));
            HttpResponse<String> retry = http.send(request("lease-1", batch("L-1", 2), Duration.ofSeconds(8)),
                    HttpResponse.BodyHandlers.ofString());
            assertProblem(retry, 409, "still being processed");
            assertThat(first).isNotDone();
            lock.rollback();
        }
        HttpResponse<String> done = first.get();
        assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
        assertThat(JSON.readTree(done.body()).get("items").get(0).get("outcome").asString()).isEqualTo("UPDATED");
        HttpResponse<String> replay = http.send(request("lease-1", batch("L-1", 2)),
                HttpResponse.BodyHandlers.ofString());
        assertThat(replay.statusCode()).isEqualTo(200);
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(replay.body()).isEqualTo(done.body());
    }

    /**
     * A request still running past its key's expiry (ingestor.http.idempotency-ttl shorter than its run) keeps its key:
     * a retry meanwhile gets 409 rather than the key, and the request then completes (retention leaves such a row too:
     * {@code HousekeepingTest}).
     */
    @Test
    void aRunningRequestKeepsItsKeyPastItsExpiry() throws Exception {
        String key = "ttl-" + java.util.UUID.randomUUID();
        assertThat(http.send(request(key + "-0", batch("T-1", 1)), HttpResponse.BodyHandlers.ofString()).statusCode())
                .isEqualTo(200);
        CompletableFuture<HttpResponse<String>> first;
        try (Connection lock = dataSource.getConnection()) {
            lock.setAutoCommit(false);
            lock.createStatement()
                    .execute("SELECT * FROM item WHERE supplier = 'ACME' AND source_id = 'T-1' FOR UPDATE");
            first = http.sendAsync(request(key, batch("T-1", 2)), HttpResponse.BodyHandlers.ofString());
            await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject("SELECT count(*) FROM http_request"
                    + " WHERE idempotency_key = ? AND state = 'IN_PROGRESS'", Long.class, key) == 1);
            jdbc.update("UPDATE http_request SET expires_at = now() - interval '1 second' WHERE idempotency_key = ?",
                    key);
            HttpResponse<String> retry = http.send(request(key, batch("T-1", 2), Duration.ofSeconds(8)),
                    HttpResponse.BodyHandlers.ofString());
            assertProblem(retry, 409, "still being processed");
            // another body under the expired key: a fresh request once the first ends, so 409 now, not 422
            HttpResponse<String> another = http.send(request(key, batch("T-2", 1), Duration.ofSeconds(8)),
                    HttpResponse.BodyHandlers.ofString());
            assertProblem(another, 409, "still being processed");
            lock.rollback();
        }
        HttpResponse<String> done = first.get();
        assertThat(done.statusCode()).as(done.body()).isEqualTo(200);
        assertThat(JSON.readTree(done.body()).get("items").get(0).get("outcome").asString()).isEqualTo("UPDATED");
    }

    /**
     * A key that is claimed and let go of by others each time between this request's claim and its look at the row
     * (here a trigger makes every claim of the key vanish): 409 with Retry-After, as in flight, never a 500.
     */
    @Test
    void aKeyThatKeepsChangingHandsIs409NotA500() throws Exception {
        jdbc.execute("CREATE FUNCTION pg_temp_vanishing_key() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                + " IF NEW.idempotency_key = 'vanishing' THEN RETURN NULL; END IF; RETURN NEW; END $$");
        jdbc.execute("CREATE TRIGGER vanishing_key BEFORE INSERT ON http_request FOR EACH ROW"
                + " EXECUTE FUNCTION pg_temp_vanishing_key()");
        try {
            HttpResponse<String> answer = http.send(request("vanishing", batch("V-1", 1)),
                    HttpResponse.BodyHandlers.ofString());
            assertProblem(answer, 409, "still being processed");
            assertThat(answer.headers().firstValue("Retry-After")).isPresent();
        } finally {
            jdbc.execute("DROP TRIGGER vanishing_key ON http_request");
            jdbc.execute("DROP FUNCTION pg_temp_vanishing_key()");
        }
        assertThat(jdbc.queryForObject("SELECT count(*) FROM item WHERE source_id = 'V-1'", Integer.class)).isZero();
    }
}
