package dev.ingestor.source.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.TestPostgres;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * POST /api/v1/suppliers/{supplier}/items (and the older partners path): request-level and item-level idempotency on a
 * real server and PostgreSQL.
 */
class ItemBatchApiTest extends IngestorTestSupport {

    private static final String ITEMS = "/api/v1/suppliers/ACME/items";
    private static final String BATCH = """
            {"items": [
              {"source_id": "I-1", "source_version": 1, "sku": "SKU-1", "quantity": 5, "delivery_date": "2026-12-01"},
              {"source_id": "I-2", "source_version": 1, "sku": "SKU-2", "quantity": 1, "delivery_date": "2026-12-02",
                  "colour": "red"},
              {"source_id": "I-3", "sku": "SKU-3", "quantity": 2, "delivery_date": "2026-12-03"},
              {"source_id": "I-4", "sku": "SKU-4", "quantity": -3, "delivery_date": "2026-12-04"},
              {"source_id": "I-5", "sku": "SKU-5", "quantity": 1, "delivery_date": "tomorrow"}
            ]}""";

    @Autowired
    ObjectMapper mapper;
    @Autowired
    javax.sql.DataSource dataSource;

    private final JdbcTemplate admin = new JdbcTemplate(TestPostgres.server().getPostgresDatabase());

    @AfterEach
    void undoFaults() {
        admin.execute("ALTER DATABASE ingestor ALLOW_CONNECTIONS true");
        jdbc.execute("DROP TRIGGER IF EXISTS inject_fault ON import_job");
        jdbc.execute("DROP FUNCTION IF EXISTS inject_fault()");
    }

    private HttpResponse<String> send(String key, String body, String... extra) throws Exception {
        List<String> headers = new ArrayList<>(List.of(extra));
        if (key != null) {
            headers.add("Idempotency-Key");
            headers.add(key);
        }
        return post(ITEMS, ACME_KEY, "application/json", body.getBytes(StandardCharsets.UTF_8),
                headers.toArray(String[]::new));
    }

    private long outboxRows() {
        return jdbc.queryForObject("SELECT count(*) FROM outbox_all WHERE topic = 'ingestor.items'", Long.class);
    }

    @Test
    void theOlderPartnersPathIsTheSameBatchUnderTheSameKeys() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post("/api/v1/partners/ACME/items", ACME_KEY, "application/json",
                BATCH.getBytes(StandardCharsets.UTF_8), "Idempotency-Key", key);
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(
                jdbc.queryForObject("SELECT count(*) FROM http_request WHERE supplier = 'ACME' AND idempotency_key = ?",
                        Long.class, key))
                .isEqualTo(1);
        // the same key by the new path is the same request: replayed, not applied again
        HttpResponse<String> again = send(key, BATCH);
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(again.body()).isEqualTo(first.body());
        // a key reaches only its own supplier on the older path too
        assertProblem(post("/api/v1/partners/GLOBEX/items", ACME_KEY, "application/json",
                BATCH.getBytes(StandardCharsets.UTF_8), "Idempotency-Key", UUID.randomUUID().toString()), 404,
                "no supplier 'GLOBEX'");
    }

    @Test
    void aBatchIsProcessedAtOnceWithEveryItemsOutcome() throws Exception {
        HttpResponse<String> response = send(UUID.randomUUID().toString(), BATCH);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.headers().firstValue("Idempotent-Replayed")).isEmpty();
        JsonNode result = mapper.readTree(response.body());
        assertThat(result.get("state").asString()).isEqualTo("COMPLETED_WITH_ERRORS");
        assertThat(result.get("counts").get("accepted").asInt()).isEqualTo(3);
        assertThat(result.get("counts").get("quarantined").asInt()).isEqualTo(2);
        JsonNode items = result.get("items");
        assertThat(items).hasSize(5);
        assertThat(items.get(0).get("outcome").asString()).isEqualTo("ACCEPTED");
        assertThat(items.get(0).get("source_id").asString()).isEqualTo("I-1");
        assertThat(items.get(3).get("outcome").asString()).isEqualTo("QUARANTINED");
        assertThat(items.get(3).get("reason").asString()).contains("item 4").contains("quantity");
        assertThat(items.get(4).get("reason").asString()).contains("delivery_date");
        assertThat(outboxRows()).isEqualTo(3);

        // the batch is a job like any other: readable, with its quarantined records
        String jobId = result.get("jobId").asString();
        JsonNode job = mapper.readTree(get("/api/v1/jobs/" + jobId, ACME_KEY).body());
        assertThat(job.get("source").asString()).isEqualTo("http-items");
        assertThat(job.get("submittedBy").asString()).as("who submitted the batch: the caller's key")
                .isEqualTo("supplier:ACME");
        assertThat(job.get("state").asString()).isEqualTo("COMPLETED_WITH_ERRORS");
        assertThat(mapper.readTree(get("/api/v1/jobs/" + jobId + "/records", ACME_KEY).body()).toString())
                .contains("quantity");

        // a fresh key with the same items: every accepted item is a REPLAY, no new event (docs/design.md, Idempotency
        // rules)
        JsonNode again = mapper.readTree(send(UUID.randomUUID().toString(), BATCH).body());
        assertThat(again.get("counts").get("replayed").asInt()).isEqualTo(3);
        assertThat(again.get("jobId").asString()).isNotEqualTo(jobId);
        assertThat(outboxRows()).isEqualTo(3);

        // a higher version updates
        JsonNode newer = mapper.readTree(send(UUID.randomUUID().toString(),
                "{\"items\":[{\"source_id\":\"I-1\",\"source_version\":2,\"sku\":\"SKU-1\",\"quantity\":6,\"delivery_date\":\"2026-12-01\"}]}")
                .body());
        assertThat(newer.get("items").get(0).get("outcome").asString()).isEqualTo("UPDATED");
        assertThat(outboxRows()).isEqualTo(4);
    }

    @Test
    void upsertModeIsTheSynchronousModeOnBothPaths() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> upsert = post(ITEMS + "?mode=upsert", ACME_KEY, "application/json",
                BATCH.getBytes(StandardCharsets.UTF_8), "Idempotency-Key", key);
        assertThat(upsert.statusCode()).as(upsert.body()).isEqualTo(200);
        JsonNode answer = mapper.readTree(upsert.body());
        assertThat(answer.get("counts").get("accepted").asInt()).isEqualTo(3);
        assertThat(answer.get("items").get(0).get("outcome").asString()).isEqualTo("ACCEPTED");
        assertThat(outboxRows()).isEqualTo(3);
        // the same request under no mode, or sync, or by the older path: one meaning, one request, replayed
        for (String again : List.of(ITEMS, ITEMS + "?mode=sync", "/api/v1/partners/ACME/items?mode=upsert")) {
            HttpResponse<String> replay = post(again, ACME_KEY, "application/json",
                    BATCH.getBytes(StandardCharsets.UTF_8),
                    "Idempotency-Key", key);
            assertThat(replay.statusCode()).as(again).isEqualTo(200);
            assertThat(replay.headers().firstValue("Idempotent-Replayed")).as(again).hasValue("true");
            assertThat(replay.body()).isEqualTo(upsert.body());
        }
        // upsert on the older path with a fresh key is processed at once too
        HttpResponse<String> partners = post("/api/v1/partners/ACME/items?mode=upsert", ACME_KEY, "application/json",
                BATCH.getBytes(StandardCharsets.UTF_8), "Idempotency-Key", UUID.randomUUID().toString());
        assertThat(partners.statusCode()).as(partners.body()).isEqualTo(200);
        assertThat(mapper.readTree(partners.body()).get("counts").get("replayed").asInt()).isEqualTo(3);
        assertThat(outboxRows()).isEqualTo(3);
    }

    @Test
    void aRetryWithTheSameKeyGetsTheStoredResponseByteForByte() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = send(key, BATCH);
        assertThat(first.statusCode()).isEqualTo(200);
        // the same request serialised differently: keys in another order, other whitespace
        String reordered = mapper.writeValueAsString(mapper.readTree(BATCH));
        HttpResponse<String> retry = send(key, reordered);
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(retry.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
        // X-Correlation-Id is the same key
        HttpResponse<String> viaCorrelation = post(ITEMS, ACME_KEY, "application/json",
                BATCH.getBytes(StandardCharsets.UTF_8),
                "X-Correlation-Id", key);
        assertThat(viaCorrelation.body()).isEqualTo(first.body());
        assertThat(outboxRows()).isEqualTo(3);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM import_job", Long.class)).isEqualTo(1);
    }

    @Test
    void theSameKeyWithAnotherPayloadIs422() throws Exception {
        String key = UUID.randomUUID().toString();
        assertThat(send(key, BATCH).statusCode()).isEqualTo(200);
        HttpResponse<String> other = send(key, BATCH.replace("SKU-1", "SKU-9"));
        assertProblem(other, 422, "different request");
        assertProblem(send(key, BATCH.replace("I-5", "I-6")), 422, key);
        // the same key in bulk mode is another request too
        assertProblem(post(ITEMS + "?mode=bulk", ACME_KEY, "application/json", BATCH.getBytes(StandardCharsets.UTF_8),
                "Idempotency-Key", key), 422, "different request");
        assertThat(outboxRows()).isEqualTo(3);
    }

    @Test
    void theSameKeyFromTwoSuppliersIsTwoRequests() throws Exception {
        String key = UUID.randomUUID().toString();
        String globexItems = "/api/v1/suppliers/GLOBEX/items";
        HttpResponse<String> acme = send(key, BATCH);
        assertThat(acme.statusCode()).as(acme.body()).isEqualTo(200);

        // the same key and the same items from another supplier: its own request, processed, its own items
        HttpResponse<String> globex = post(globexItems, GLOBEX_KEY, "application/json",
                BATCH.getBytes(StandardCharsets.UTF_8), "Idempotency-Key", key);
        assertThat(globex.statusCode()).as(globex.body()).isEqualTo(200);
        assertThat(globex.headers().firstValue("Idempotent-Replayed")).isEmpty();
        JsonNode acmeAnswer = mapper.readTree(acme.body());
        JsonNode globexAnswer = mapper.readTree(globex.body());
        assertThat(globexAnswer.get("jobId").asString()).isNotEqualTo(acmeAnswer.get("jobId").asString());
        assertThat(globexAnswer.get("counts").get("accepted").asInt()).isEqualTo(3);
        assertThat(globexAnswer.get("counts").get("replayed").asInt()).isZero();

        // the same key with another payload from the second supplier is no reuse (no 422): a third request
        String otherKey = UUID.randomUUID().toString();
        assertThat(send(otherKey, BATCH.replace("SKU-1", "SKU-7")).statusCode()).isEqualTo(200);
        HttpResponse<String> otherPayload = post(globexItems, GLOBEX_KEY, "application/json",
                BATCH.replace("I-", "G-").getBytes(StandardCharsets.UTF_8), "Idempotency-Key", otherKey);
        assertThat(otherPayload.statusCode()).as(otherPayload.body()).isEqualTo(200);
        assertThat(otherPayload.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(mapper.readTree(otherPayload.body()).get("counts").get("accepted").asInt()).isEqualTo(3);

        // bulk mode alike: one job each, not the other supplier's job
        String bulkKey = UUID.randomUUID().toString();
        HttpResponse<String> acmeBulk = post(ITEMS + "?mode=bulk", ACME_KEY, "application/json",
                BATCH.getBytes(StandardCharsets.UTF_8), "Idempotency-Key", bulkKey);
        HttpResponse<String> globexBulk = post(globexItems + "?mode=bulk", GLOBEX_KEY, "application/json",
                BATCH.getBytes(StandardCharsets.UTF_8), "Idempotency-Key", bulkKey);
        assertThat(acmeBulk.statusCode()).as(acmeBulk.body()).isEqualTo(202);
        assertThat(globexBulk.statusCode()).as(globexBulk.body()).isEqualTo(202);
        assertThat(globexBulk.headers().firstValue("Idempotent-Replayed")).isEmpty();
        JsonNode globexJob = mapper.readTree(globexBulk.body());
        assertThat(globexJob.get("id").asString()).isNotEqualTo(mapper.readTree(acmeBulk.body()).get("id").asString());
        assertThat(globexJob.get("supplier").asString()).isEqualTo("GLOBEX");

        // each key is kept once per supplier, and each request is one job of its own supplier
        for (String k : List.of(key, otherKey, bulkKey)) {
            assertThat(
                    jdbc.queryForList("SELECT supplier FROM http_request WHERE idempotency_key = ? ORDER BY supplier",
                            String.class, k))
                    .as(k).containsExactly("ACME", "GLOBEX");
            assertThat(jdbc.queryForList("SELECT supplier FROM import_job WHERE request_key = ? ORDER BY supplier",
                    String.class, k)).as(k).containsExactly("ACME", "GLOBEX");
        }
        // and the replay of each stays with its own supplier
        HttpResponse<String> globexRetry = post(globexItems, GLOBEX_KEY, "application/json",
                BATCH.getBytes(StandardCharsets.UTF_8), "Idempotency-Key", key);
        assertThat(globexRetry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(globexRetry.body()).isEqualTo(globex.body());
        assertThat(send(key, BATCH).body()).isEqualTo(acme.body());
    }

    @Test
    void anExpiredKeyIsAFreshRequest() throws Exception {
        String key = UUID.randomUUID().toString();
        assertThat(send(key, BATCH).statusCode()).isEqualTo(200);
        // as if ingestor.http.idempotency-ttl (30 days) had passed
        jdbc.update("UPDATE http_request SET expires_at = now() - interval '1 second' WHERE idempotency_key = ?", key);
        HttpResponse<String> fresh = send(key, BATCH.replace("SKU-1", "SKU-9"));
        assertThat(fresh.statusCode()).as(fresh.body()).isEqualTo(200);
        assertThat(fresh.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(jdbc.queryForObject(
                "SELECT expires_at > now() + interval '29 days' FROM http_request WHERE idempotency_key = ?",
                Boolean.class, key)).isTrue();
    }

    @Test
    void concurrentRequestsWithOneKeyAreProcessedOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        ExecutorService pool = Executors.newFixedThreadPool(20);
        try {
            List<Callable<HttpResponse<String>>> calls = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                calls.add(() -> send(key, BATCH));
            }
            int processed = 0;
            int replayed = 0;
            int inFlight = 0;
            String body = null;
            for (Future<HttpResponse<String>> f : pool.invokeAll(calls)) {
                HttpResponse<String> r = f.get();
                if (r.statusCode() == 409) {
                    inFlight++;
                    assertThat(r.headers().firstValue("Retry-After")).isPresent();
                    assertProblem(r, 409, "still being processed");
                } else {
                    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
                    if (r.headers().firstValue("Idempotent-Replayed").isPresent()) {
                        replayed++;
                    } else {
                        processed++;
                    }
                    if (body != null) {
                        assertThat(r.body()).isEqualTo(body);
                    }
                    body = r.body();
                }
            }
            assertThat(processed).isEqualTo(1);
            assertThat(processed + replayed + inFlight).isEqualTo(20);
            assertThat(outboxRows()).isEqualTo(3);
            assertThat(jdbc.queryForObject("SELECT count(*) FROM item", Long.class)).isEqualTo(3);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void bulkModeAnswers202WithAJobAndTheSameKeyReturnsTheSameJob() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = post(ITEMS + "?mode=bulk", ACME_KEY, "application/json",
                BATCH.getBytes(StandardCharsets.UTF_8),
                "Idempotency-Key", key);
        assertThat(first.statusCode()).as(first.body()).isEqualTo(202);
        String jobId = mapper.readTree(first.body()).get("id").asString();
        HttpResponse<String> again = post(ITEMS + "?mode=bulk", ACME_KEY, "application/json",
                BATCH.getBytes(StandardCharsets.UTF_8),
                "Idempotency-Key", key);
        assertThat(again.statusCode()).isEqualTo(202);
        assertThat(mapper.readTree(again.body()).get("id").asString()).isEqualTo(jobId);

        // the stages take the batch like a file: line N of the stored batch is item N
        await().atMost(Duration.ofSeconds(30))
                .until(() -> mapper.readTree(get("/api/v1/jobs/" + jobId, ACME_KEY).body()).get("state").asString()
                        .equals("COMPLETED_WITH_ERRORS"));
        JsonNode job = mapper.readTree(get("/api/v1/jobs/" + jobId, ACME_KEY).body());
        assertThat(job.get("counts").get("accepted").asInt()).isEqualTo(3);
        assertThat(job.get("requestKey").asString()).isEqualTo(key);
        assertThat(get("/api/v1/jobs/" + jobId + "/records", ACME_KEY).body()).contains("item 4: quantity");
        assertThat(outboxRows()).isEqualTo(3);
    }

    @Test
    void aBatchRecordsWhoSubmittedItTheSupplierOrTheAdmin() throws Exception {
        HttpResponse<String> byAdmin = post(ITEMS + "?mode=bulk", ADMIN_KEY, "application/json",
                BATCH.getBytes(StandardCharsets.UTF_8), "Idempotency-Key", UUID.randomUUID().toString());
        assertThat(byAdmin.statusCode()).as(byAdmin.body()).isEqualTo(202);
        JsonNode job = mapper.readTree(byAdmin.body());
        assertThat(job.get("submittedBy").asString()).isEqualTo("admin");
        assertThat(job.get("supplier").asString()).isEqualTo("ACME");
        assertThat(jdbc.queryForObject("SELECT submitted_by FROM import_job WHERE id = ?::uuid", String.class,
                job.get("id").asString())).isEqualTo("admin");

        HttpResponse<String> bySupplier = send(UUID.randomUUID().toString(), BATCH);
        String jobId = mapper.readTree(bySupplier.body()).get("jobId").asString();
        assertThat(jdbc.queryForObject("SELECT submitted_by FROM import_job WHERE id = ?::uuid", String.class, jobId))
                .isEqualTo("supplier:ACME");
    }

    @Test
    void aTransientFailureIsNotStoredAndTheRetryRunsAgain() throws Exception {
        // the first attempt fails inside its transaction with a serialization failure; the database stays up
        // (a sequence, because its nextval survives the rollback the fault causes)
        jdbc.execute("DROP SEQUENCE IF EXISTS fault_once");
        jdbc.execute("CREATE SEQUENCE fault_once");
        jdbc.execute("""
                CREATE FUNCTION inject_fault() RETURNS trigger AS $$
                BEGIN
                  IF NEW.source = 'http-items' AND nextval('fault_once') = 1 THEN
                    RAISE EXCEPTION 'injected' USING ERRCODE = 'serialization_failure';
                  END IF;
                  RETURN NEW;
                END $$ LANGUAGE plpgsql""");
        jdbc.execute(
                "CREATE TRIGGER inject_fault BEFORE INSERT ON import_job FOR EACH ROW EXECUTE FUNCTION inject_fault()");
        String key = UUID.randomUUID().toString();

        HttpResponse<String> failed = send(key, BATCH);
        assertProblem(failed, 503, "retry");
        assertThat(failed.headers().firstValue("Retry-After")).hasValue("5");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM http_request", Long.class)).isZero();
        assertThat(outboxRows()).isZero();

        HttpResponse<String> retry = send(key, BATCH);
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(mapper.readTree(retry.body()).get("counts").get("accepted").asInt()).isEqualTo(3);
        assertThat(outboxRows()).isEqualTo(3);
    }

    // slow tier: the database stopped and an in-flight lease waited out
    @SlowTest
    @Test
    void theDatabaseStoppedMidRequestIs503AndTheRetrySucceedsOnce() throws Exception {
        // hold the request inside its transaction, then take the database away under it
        jdbc.execute("""
                CREATE FUNCTION inject_fault() RETURNS trigger AS $$
                BEGIN
                  IF NEW.source = 'http-items' THEN PERFORM pg_sleep(3); END IF;
                  RETURN NEW;
                END $$ LANGUAGE plpgsql""");
        jdbc.execute(
                "CREATE TRIGGER inject_fault BEFORE INSERT ON import_job FOR EACH ROW EXECUTE FUNCTION inject_fault()");
        String key = UUID.randomUUID().toString();
        CompletableFuture<HttpResponse<String>> inFlight = CompletableFuture.supplyAsync(() -> {
            try {
                return send(key, BATCH);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> admin.queryForObject(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = 'ingestor' AND query LIKE 'INSERT INTO import_job%'",
                Long.class) > 0);
        admin.execute("ALTER DATABASE ingestor ALLOW_CONNECTIONS false");
        admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'ingestor' AND pid <> pg_backend_pid()");
        HttpResponse<String> failed = inFlight.get();
        assertProblem(failed, 503, "retry");
        admin.execute("ALTER DATABASE ingestor ALLOW_CONNECTIONS true");
        // the pool still holds the terminated connections: let it drop them now rather than one failure each
        ((com.zaxxer.hikari.HikariDataSource) dataSource).getHikariPoolMXBean().softEvictConnections();
        await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
            jdbc.execute("DROP TRIGGER IF EXISTS inject_fault ON import_job");
            return true;
        });

        // the key could not be released while the database was gone: the caller's retries get 409 until the
        // in-flight lease (3 s in tests) runs out, then one of them takes the key over and does the work
        List<Integer> statuses = new ArrayList<>();
        HttpResponse<String> done = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline) {
            HttpResponse<String> r = send(key, BATCH);
            statuses.add(r.statusCode());
            if (r.statusCode() == 200) {
                done = r;
                break;
            }
            assertThat(r.statusCode()).as(r.body()).isIn(409, 503);
            Thread.sleep(500); // on purpose: a client's pause between retries
        }
        assertThat(done).as("statuses %s", statuses).isNotNull();
        assertThat(mapper.readTree(done.body()).get("counts").get("accepted").asInt()).isEqualTo(3);
        assertThat(send(key, BATCH).headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(outboxRows()).isEqualTo(3);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM import_job WHERE source = 'http-items'", Long.class))
                .isEqualTo(1);
    }

    @Test
    void badBatchesAreProblemsNamingWhatWasWrong() throws Exception {
        assertProblem(send(null, BATCH), 400, "Idempotency-Key");
        HttpResponse<String> malformed = send("k-1", "{\"items\": [ {\"source_id\": \"A\",, } ]}");
        assertProblem(malformed, 400, "line 1, column");
        assertProblem(send("k-2", "{\"rows\": []}"), 400, "\"items\"");
        assertProblem(send("k-3", "{\"items\": []}"), 400, "empty");
        assertProblem(send("k-4", "{\"items\": [], \"items\": [1]}"), 400, "Duplicate Object property \"items\"");
        assertProblem(
                post(ITEMS, ACME_KEY, "text/plain", BATCH.getBytes(StandardCharsets.UTF_8), "Idempotency-Key", "k-5"),
                415, "Content-Type 'text/plain' is not supported");
        assertThat(send("k-6", BATCH).statusCode()).isEqualTo(200);
        String overLimit = "{\"items\": [{\"x\":\"" + "y".repeat(70_000) + "\"}]}";
        assertProblem(send("k-7", overLimit), 413, "the body of " + overLimit.length()
                + " bytes is larger than the limit of 65536 bytes (ingestor.http.max-json-size)");
        assertProblem(send("k k", BATCH), 400, "visible ASCII");
        assertProblem(post(ITEMS + "?mode=later", ACME_KEY, "application/json", BATCH.getBytes(StandardCharsets.UTF_8),
                "Idempotency-Key", "k-8"), 400, "mode 'later'");
        assertProblem(post("/api/v1/suppliers/GLOBEX/items", ACME_KEY, "application/json",
                BATCH.getBytes(StandardCharsets.UTF_8),
                "Idempotency-Key", "k-9"), 404, "no supplier 'GLOBEX'");
        assertProblem(post(ITEMS, null, "application/json", BATCH.getBytes(StandardCharsets.UTF_8), "Idempotency-Key",
                "k-10"), 401, "this API needs a key");
        // nothing malformed left a key behind
        assertThat(jdbc.queryForList("SELECT idempotency_key FROM http_request", String.class)).containsExactly("k-6");
    }
}
