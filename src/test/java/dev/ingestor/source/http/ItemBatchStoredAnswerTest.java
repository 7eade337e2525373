package dev.ingestor.source.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An item batch's answer is stored under its request key in the transaction of its effects (route
 * item-batch-transaction, step 5c): when storing the answer fails, the items applied, their events and the job
 * roll back with it, the key is released, and the retry does the work once.
 */
class ItemBatchStoredAnswerTest extends IngestorTestSupport {

    private static final String ITEMS = "/api/v1/suppliers/ACME/items";
    private static final String BATCH = """
            {"items": [
              {"source_id": "S-1", "source_version": 1, "sku": "SKU-1", "quantity": 5, "delivery_date": "2026-12-01"},
              {"source_id": "S-2", "source_version": 1, "sku": "SKU-2", "quantity": 1, "delivery_date": "2026-12-02"}
            ]}""";

    @AfterEach
    void undoFault() {
        jdbc.execute("DROP TRIGGER IF EXISTS inject_fault ON http_request");
        jdbc.execute("DROP FUNCTION IF EXISTS inject_answer_fault()");
        jdbc.execute("DROP SEQUENCE IF EXISTS answer_fault_once");
    }

    private HttpResponse<String> send(String key) throws Exception {
        return post(ITEMS, ACME_KEY, "application/json", BATCH.getBytes(StandardCharsets.UTF_8), "Idempotency-Key",
                key);
    }

    private long count(String sql) {
        return jdbc.queryForObject(sql, Long.class);
    }

    @Test
    void aFailureStoringTheAnswerRollsBackTheEffectsAndTheRetryAppliesThemOnce() throws Exception {
        // the first attempt to store an answer fails (a serialization failure, so transient); the sequence's
        // nextval survives the rollback the fault causes
        jdbc.execute("CREATE SEQUENCE answer_fault_once");
        jdbc.execute("""
                CREATE FUNCTION inject_answer_fault() RETURNS trigger AS $$
                BEGIN
                  IF NEW.state = 'COMPLETED' AND nextval('answer_fault_once') = 1 THEN
                    RAISE EXCEPTION 'injected' USING ERRCODE = 'serialization_failure';
                  END IF;
                  RETURN NEW;
                END $$ LANGUAGE plpgsql""");
        jdbc.execute(
                "CREATE TRIGGER inject_fault BEFORE UPDATE ON http_request FOR EACH ROW EXECUTE FUNCTION inject_answer_fault()");
        String key = UUID.randomUUID().toString();

        HttpResponse<String> failed = send(key);
        assertProblem(failed, 503, "retry");
        assertThat(count("SELECT count(*) FROM http_request")).as("the key, released").isZero();
        assertThat(count("SELECT count(*) FROM item WHERE supplier = 'ACME'")).as("items applied").isZero();
        assertThat(count("SELECT count(*) FROM outbox_all WHERE topic = 'ingestor.items'")).as("events").isZero();
        assertThat(count("SELECT count(*) FROM import_job WHERE source = 'http-items'")).as("jobs").isZero();

        HttpResponse<String> retry = send(key);
        assertThat(retry.statusCode()).as(retry.body()).isEqualTo(200);
        assertThat(JSON.readTree(retry.body()).get("counts").get("accepted").asInt()).isEqualTo(2);
        assertThat(count("SELECT count(*) FROM outbox_all WHERE topic = 'ingestor.items'")).isEqualTo(2);
        assertThat(count("SELECT count(*) FROM import_job WHERE source = 'http-items'")).isEqualTo(1);
        HttpResponse<String> replay = send(key);
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(replay.body()).isEqualTo(retry.body());
    }
}
