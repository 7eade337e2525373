package dev.ingestor.source.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;

/** Items per batch are capped (ingestor.http.max-items-per-batch, 10,000 by default). */
class ItemBatchLimitsTest extends IngestorTestSupport {

    @Test
    void aBatchOfTooManyItemsIs413NamingTheLimitAndKeepsNothing() throws Exception {
        StringBuilder body = new StringBuilder("{\"items\": [{}");
        body.append(",{}".repeat(10_000));
        body.append("]}");
        HttpResponse<String> response = post("/api/v1/suppliers/ACME/items", ACME_KEY, "application/json",
                body.toString().getBytes(StandardCharsets.UTF_8), "Idempotency-Key", UUID.randomUUID().toString());
        assertProblem(response, 413, "more than 10000 items, the limit (ingestor.http.max-items-per-batch)");
        assertThat(jobCount()).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM http_request", Long.class)).isZero();
    }

    @Test
    void aBatchAtTheCapIsProcessed() throws Exception {
        StringBuilder body = new StringBuilder("{\"items\": [{}");
        body.append(",{}".repeat(9_999));
        body.append("]}");
        HttpResponse<String> response = post("/api/v1/suppliers/ACME/items", ACME_KEY, "application/json",
                body.toString().getBytes(StandardCharsets.UTF_8), "Idempotency-Key", UUID.randomUUID().toString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(JSON.readTree(response.body()).get("counts").get("quarantined").asLong()).isEqualTo(10_000);
    }
}
