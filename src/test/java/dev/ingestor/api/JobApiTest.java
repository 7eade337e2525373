package dev.ingestor.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import dev.ingestor.intake.IntakeHeaders;
import dev.ingestor.intake.IntakeResult;
import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

class JobApiTest extends IngestorTestSupport {

    @Autowired
    ObjectMapper mapper;

    private IntakeResult ingest(String supplier, String name, String content) {
        return producer.requestBodyAndHeaders("direct:intake", content.getBytes(StandardCharsets.UTF_8),
                Map.of(IntakeHeaders.SUPPLIER, supplier, IntakeHeaders.FILE_NAME, name, IntakeHeaders.SOURCE, "test"),
                IntakeResult.class);
    }

    @Test
    void aJobIsReadByIdWithEveryContractField() throws Exception {
        IntakeResult first = ingest("ACME", "a.csv", "source_id\nX\n");
        ingest("ACME", "a-again.csv", "source_id\nX\n");
        awaitSettled();

        HttpResponse<String> response = get("/api/v1/jobs/" + first.job().id());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type"))
                .hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        JsonNode job = mapper.readTree(response.body());
        assertThat(job.get("id").asString()).isEqualTo(first.job().id().toString());
        assertThat(job.get("supplier").asString()).isEqualTo("ACME");
        assertThat(job.get("state").asString()).isEqualTo("REJECTED");
        assertThat(job.get("error").asString()).contains("lacks the column(s) [sku, quantity, delivery_date]");
        assertThat(job.get("key").asString()).isEqualTo(first.job().key().toString());
        assertThat(job.get("fileName").asString()).isEqualTo("a.csv");
        assertThat(job.get("size").asLong()).isEqualTo(12);
        assertThat(job.get("source").asString()).isEqualTo("test");
        assertThat(job.get("receivedAt").asString()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
        assertThat(job.get("updatedAt").asString()).isNotBlank();
        assertThat(job.get("duplicateCount").asInt()).isEqualTo(1);
        assertThat(job.get("counts").get("total").asLong()).isZero();
        assertThat(job.get("counts").has("quarantined")).isTrue();
        assertThat(job.get("links").get("self").asString()).isEqualTo("/api/v1/jobs/" + first.job().id());
    }

    @Test
    void aRejectedJobCarriesItsReason() throws Exception {
        IntakeResult empty = ingest("ACME", "empty.csv", "");
        JsonNode job = mapper.readTree(get("/api/v1/jobs/" + empty.job().id()).body());
        assertThat(job.get("state").asString()).isEqualTo("REJECTED");
        assertThat(job.get("error").asString()).isEqualTo("the file is empty (0 bytes)");
    }

    @Test
    void aFailedJobShowsASupplierKeyTheStageAndItsDeadLetterAndTheAdminKeyTheWholeError() throws Exception {
        failEveryValidation("job_api_fault", "");
        byte[] advice = "source_id,sku,quantity,delivery_date\nF-1,SKU,1,2026-12-01\n".getBytes(StandardCharsets.UTF_8);
        String id;
        try {
            HttpResponse<String> pushed = post("/api/v1/suppliers/ACME/files", ACME_KEY, "application/octet-stream",
                    advice,
                    "X-File-Name", "fails.csv");
            assertThat(pushed.statusCode()).as(pushed.body()).isEqualTo(202);
            id = mapper.readTree(pushed.body()).get("id").asString();
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> "FAILED".equals(
                    jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?::uuid", String.class, id)));
        } finally {
            removeValidationFault("job_api_fault");
        }
        long letter = jdbc.queryForObject("SELECT id FROM dead_letter WHERE job_id = ?::uuid", Long.class, id);
        String shown = "validation failed (dead letter " + letter + ")";

        assertThat(mapper.readTree(get("/api/v1/jobs/" + id, ACME_KEY).body()).get("error").asString())
                .isEqualTo(shown);
        assertThat(mapper.readTree(get("/api/v1/jobs?state=FAILED", ACME_KEY).body()).get("items").get(0).get("error")
                .asString())
                .isEqualTo(shown);
        HttpResponse<String> again = post("/api/v1/suppliers/ACME/files", ACME_KEY, "application/octet-stream", advice,
                "X-File-Name", "fails-again.csv");
        assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
        assertThat(mapper.readTree(again.body()).get("error").asString())
                .as("the answer to the same bytes pushed again")
                .isEqualTo(shown);

        String whole = mapper.readTree(get("/api/v1/jobs/" + id, ADMIN_KEY).body()).get("error").asString();
        assertThat(whole).startsWith(shown + ": ").contains("deadlock detected (injected)");
        assertThat(mapper.readTree(get("/api/v1/jobs?state=FAILED&supplier=ACME", ADMIN_KEY).body()).get("items").get(0)
                .get("error").asString()).isEqualTo(whole);
    }

    @Test
    void anUnknownJobIs404ProblemJson() throws Exception {
        HttpResponse<String> response = get("/api/v1/jobs/0192f6c4-5b8e-7c3a-9d1e-2f4a6b8c0d1e");
        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        JsonNode problem = mapper.readTree(response.body());
        assertThat(problem.get("status").asInt()).isEqualTo(404);
        assertThat(problem.get("title").asString()).isEqualTo("Not Found");
        assertThat(problem.get("type").asString()).isNotBlank();
        assertThat(problem.get("detail").asString()).contains("0192f6c4-5b8e-7c3a-9d1e-2f4a6b8c0d1e");
    }

    @Test
    void aMalformedIdIs400NamingTheId() throws Exception {
        HttpResponse<String> response = get("/api/v1/jobs/not-a-uuid");
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(mapper.readTree(response.body()).get("detail").asString()).contains("not-a-uuid");
    }

    @Test
    void theListIsNewestFirstFilteredAndPaged() throws Exception {
        String valid = "source_id,sku,quantity,delivery_date\nL-%s,SKU,1,2026-12-01\n";
        ingest("ACME", "1.csv", valid.formatted(1));
        ingest("GLOBEX", "2.csv",
                "[{\"source_id\": \"L-2\", \"sku\": \"S\", \"quantity\": 2, \"delivery_date\": \"2026-12-02\"}]");
        ingest("ACME", "3.csv", valid.formatted(3));
        ingest("ACME", "4.csv", "");
        awaitSettled();

        JsonNode all = mapper.readTree(get("/api/v1/jobs").body());
        assertThat(all.get("total").asLong()).isEqualTo(4);
        assertThat(all.get("page").asInt()).isZero();
        assertThat(all.get("size").asInt()).isEqualTo(50);
        assertThat(names(all)).containsExactly("4.csv", "3.csv", "2.csv", "1.csv");

        JsonNode acmeCompleted = mapper.readTree(get("/api/v1/jobs?supplier=ACME&state=COMPLETED").body());
        assertThat(names(acmeCompleted)).containsExactly("3.csv", "1.csv");
        assertThat(acmeCompleted.get("total").asLong()).isEqualTo(2);
        assertThat(names(mapper.readTree(get("/api/v1/jobs?supplier=GLOBEX&state=completed").body())))
                .containsExactly("2.csv");

        JsonNode secondPage = mapper.readTree(get("/api/v1/jobs?page=1&size=3").body());
        assertThat(names(secondPage)).containsExactly("1.csv");
        assertThat(secondPage.get("total").asLong()).isEqualTo(4);
    }

    @Test
    void badListParametersAre400WithTheReason() throws Exception {
        HttpResponse<String> state = get("/api/v1/jobs?state=DONE");
        assertThat(state.statusCode()).isEqualTo(400);
        assertThat(mapper.readTree(state.body()).get("detail").asString()).contains("DONE").contains("RECEIVED");

        HttpResponse<String> size = get("/api/v1/jobs?size=5000");
        assertThat(size.statusCode()).isEqualTo(400);
        assertThat(mapper.readTree(size.body()).get("detail").asString()).contains("1000");

        HttpResponse<String> page = get("/api/v1/jobs?page=abc");
        assertThat(page.statusCode()).isEqualTo(400);
        assertThat(page.body()).doesNotContain("Exception").doesNotContain("at dev.");
    }

    private static List<String> names(JsonNode list) {
        return java.util.stream.StreamSupport.stream(list.get("items").spliterator(), false)
                .map(item -> item.get("fileName").asString()).toList();
    }

    @Test
    void whileTheDatabaseIsGoneTheApiAnswers503WithRetryAfterAndNoStackTrace() throws Exception {
        var admin = new org.springframework.jdbc.core.JdbcTemplate(
                dev.ingestor.support.TestPostgres.server().getPostgresDatabase());
        admin.execute("ALTER DATABASE ingestor ALLOW_CONNECTIONS false"); // binds superusers too, unlike CONNECTION LIMIT
        admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'ingestor' AND pid <> pg_backend_pid()");
        try {
            HttpResponse<String> response = get("/api/v1/jobs");
            assertThat(response.statusCode()).isEqualTo(503);
            assertThat(response.headers().firstValue("Retry-After")).hasValue("5");
            assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(mapper.readTree(response.body()).get("detail").asString()).contains("database");
            assertThat(response.body()).doesNotContain("Exception").doesNotContain("at org.");
        } finally {
            admin.execute("ALTER DATABASE ingestor ALLOW_CONNECTIONS true");
        }
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(20))
                .until(() -> get("/api/v1/jobs").statusCode() == 200);
    }
}
