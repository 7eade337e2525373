package dev.ingestor.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.support.IngestorTestSupport;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * /api/v1/openapi.json, fetched from the running app, is a document a partner can generate a typed client from:
 * valid OpenAPI 3.0, every request body and every answer with a schema, the server the caller used, and schemas
 * that declare every field the real answers carry.
 */
class OpenApiDocumentTest extends IngestorTestSupport {

    private static final String DOCUMENT = "/api/v1/openapi.json";

    private JsonNode document;

    @BeforeEach
    void fetchDocument() throws Exception {
        HttpResponse<String> response = get(DOCUMENT, null);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        document = JSON.readTree(response.body());
    }

    @Test
    void theDocumentIsValidOpenApi30() throws Exception {
        String body = get(DOCUMENT, null).body();
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        SwaggerParseResult result = new OpenAPIV3Parser().readContents(body, null, options);
        assertThat(result.getMessages()).as("validation messages").isEmpty();
        OpenAPI api = result.getOpenAPI();
        assertThat(api.getOpenapi()).startsWith("3.0");
        assertThat(api.getComponents().getSecuritySchemes()).containsKeys("apiKey", "bearer");
        assertThat(api.getSecurity()).isNotEmpty();
        // every $ref names a schema the document has
        for (String ref : refs(document, new ArrayList<>())) {
            assertThat(ref).startsWith("#/components/schemas/");
            assertThat(document.at("/components/schemas/" + ref.substring("#/components/schemas/".length())).isObject())
                    .as(ref).isTrue();
        }
    }

    @Test
    void everyRequestBodyAndEveryAnswerHasASchema() {
        OpenAPI api = new OpenAPIV3Parser().readContents(document.toString()).getOpenAPI();
        int operations = 0;
        for (Map.Entry<String, PathItem> path : api.getPaths().entrySet()) {
            for (Map.Entry<PathItem.HttpMethod, Operation> entry : path.getValue().readOperationsMap().entrySet()) {
                Operation operation = entry.getValue();
                String name = entry.getKey() + " " + path.getKey();
                operations++;
                if (operation.getRequestBody() != null) {
                    assertThat(operation.getRequestBody().getContent()).as(name).isNotEmpty();
                    operation.getRequestBody().getContent().forEach(
                            (type, media) -> assertThat(media.getSchema()).as(name + " request " + type).isNotNull());
                }
                assertThat(operation.getResponses().keySet()).as(name).anyMatch(code -> code.startsWith("2"));
                for (Map.Entry<String, ApiResponse> response : operation.getResponses().entrySet()) {
                    String what = name + " " + response.getKey();
                    assertThat(response.getValue().getContent()).as(what).isNotEmpty();
                    for (MediaType media : response.getValue().getContent().values()) {
                        assertThat(media.getSchema()).as(what).isNotNull();
                        if (!response.getKey().startsWith("2")) {
                            assertThat(media.getSchema().get$ref()).as(what).isEqualTo("#/components/schemas/Problem");
                        }
                    }
                }
            }
        }
        assertThat(operations).isGreaterThanOrEqualTo(17);
        // the bodies partners send
        for (String path : List.of("/api/v1/suppliers/{supplier}/files", "/api/v1/suppliers/{supplier}/items",
                "/api/v1/partners/{partner}/items")) {
            assertThat(api.getPaths().get(path).getPost().getRequestBody().getRequired()).as(path).isTrue();
        }
        assertThat(document.at(
                "/paths/~1api~1v1~1suppliers~1{supplier}~1items/post/requestBody/content/application~1json/schema/$ref")
                .asString()).isEqualTo("#/components/schemas/ItemBatch");
        assertThat(document
                .at("/paths/~1api~1v1~1suppliers~1{supplier}~1files/post/requestBody/content/text~1csv/schema/format")
                .asString()).isEqualTo("binary");
        assertThat(document.at("/paths/~1api~1v1~1jobs~1{id}/get/responses/200/content/application~1json/schema/$ref")
                .asString()).isEqualTo("#/components/schemas/Job");
        // examples a reader sees next to the fields
        assertThat(document.at("/components/schemas/Job/properties/supplier/example").asString()).isEqualTo("ACME");
        assertThat(document.at("/components/schemas/Problem/properties/type/example").asString())
                .startsWith("urn:ingestor:problem:");
    }

    @Test
    void theServerIsTheAddressTheCallerUsed() throws Exception {
        assertThat(servers(document)).containsExactly("http://127.0.0.1:" + port);
        assertThat(document.toString()).doesNotContain("0.0.0.0");

        // behind a proxy: the address the proxy was reached by
        HttpResponse<String> proxied = http.send(HttpRequest.newBuilder(uri(DOCUMENT))
                .header("X-Forwarded-Proto", "https").header("X-Forwarded-Host", "api.example.com").GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(servers(JSON.readTree(proxied.body()))).containsExactly("https://api.example.com");

        // the proxy's answer is not kept for the next caller
        assertThat(servers(JSON.readTree(get(DOCUMENT, null).body()))).containsExactly("http://127.0.0.1:" + port);
    }

    @Test
    void theSchemasDeclareEveryFieldOfRealAnswers() throws Exception {
        truncateAll();
        HttpResponse<String> pushed = post("/api/v1/suppliers/ACME/files", ACME_KEY, "text/csv",
                "source_id,sku,quantity,delivery_date\nO-1,SKU-1,2,2026-12-01\nO-2,SKU-2,-3,2026-12-01\n"
                        .getBytes(StandardCharsets.UTF_8),
                "X-File-Name", "openapi.csv");
        assertThat(pushed.statusCode()).as(pushed.body()).isEqualTo(202);
        JsonNode job = JSON.readTree(pushed.body());
        declares(job, "Job");
        awaitSettled();
        String jobId = job.get("id").asString();
        declares(JSON.readTree(get("/api/v1/jobs/" + jobId).body()), "Job");
        declares(JSON.readTree(get("/api/v1/jobs?supplier=ACME").body()), "JobPage");
        JsonNode records = JSON.readTree(get("/api/v1/jobs/" + jobId + "/records?outcome=QUARANTINED").body());
        assertThat(records.get("items")).isNotEmpty();
        declares(records, "QuarantinedRecordPage");
        declares(JSON.readTree(get("/api/v1/jobs/not-a-uuid").body()), "Problem");

        String key = UUID.randomUUID().toString();
        HttpResponse<String> batch = post("/api/v1/suppliers/ACME/items", ACME_KEY, "application/json",
                "{\"items\":[{\"source_id\":\"I-1\",\"source_version\":1,\"sku\":\"SKU-1\",\"quantity\":5,\"delivery_date\":\"2026-12-01\"},{\"source_id\":\"I-2\",\"sku\":\"SKU-2\",\"quantity\":0,\"delivery_date\":\"2026-12-01\"}]}"
                        .getBytes(StandardCharsets.UTF_8),
                "Idempotency-Key", key);
        assertThat(batch.statusCode()).as(batch.body()).isEqualTo(200);
        JsonNode answer = JSON.readTree(batch.body());
        assertThat(answer.get("items").get(1).has("reason")).isTrue();
        declares(answer, "ItemBatchAnswer");
        HttpResponse<String> bulk = post("/api/v1/suppliers/ACME/items?mode=bulk", ACME_KEY, "application/json",
                "{\"items\":[{\"source_id\":\"I-3\",\"sku\":\"SKU-3\",\"quantity\":1,\"delivery_date\":\"2026-12-01\"}]}"
                        .getBytes(StandardCharsets.UTF_8),
                "Idempotency-Key", UUID.randomUUID().toString());
        assertThat(bulk.statusCode()).as(bulk.body()).isEqualTo(202);
        declares(JSON.readTree(bulk.body()), "Job");
        awaitSettled();

        // a job that failed in a stage, as the dead-letter channel leaves it
        jdbc.update("UPDATE import_job SET state = 'FAILED', error = 'gave up' WHERE id = ?::uuid", jobId);
        jdbc.update(
                "INSERT INTO dead_letter (job_id, stage, exception, message, attempts) VALUES (?::uuid, 'processing',"
                        + " 'java.lang.IllegalStateException', 'broken', 3)",
                jobId);
        declares(JSON.readTree(get("/api/v1/admin/overview").body()), "AdminOverview");
        declares(JSON.readTree(get("/api/v1/admin/jobs").body()), "JobPage");
        JsonNode adminJob = JSON.readTree(get("/api/v1/admin/jobs/" + jobId).body());
        assertThat(adminJob.get("deadLetters")).isNotEmpty();
        declares(adminJob, "AdminJob");
        JsonNode failed = JSON.readTree(get("/api/v1/admin/failed-jobs").body());
        assertThat(failed.get("items")).isNotEmpty();
        declares(failed, "FailedJobPage");
        JsonNode letters = JSON.readTree(get("/api/v1/admin/dead-letters").body());
        assertThat(letters.get("items")).isNotEmpty();
        declares(letters, "DeadLetterPage");
        declares(JSON.readTree(get("/api/v1/admin/idempotency-keys/ACME/" + key).body()), "RequestKey");
        HttpResponse<String> retried = http.send(
                HttpRequest.newBuilder(uri("/api/v1/admin/suppliers/ACME/retry-failed"))
                        .header("X-Api-Key", ADMIN_KEY).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(retried.statusCode()).as(retried.body()).isEqualTo(202);
        declares(JSON.readTree(retried.body()), "RetryFailedResult");
        declares(JSON.readTree(get("/api/v1/admin/throughput?minutes=5").body()), "Throughput");
        HttpResponse<String> preview = http.send(HttpRequest.newBuilder(uri("/api/v1/admin/suppliers/ACME/preview"))
                .header("X-Api-Key", ADMIN_KEY).POST(HttpRequest.BodyPublishers.ofString(
                        "source_id,source_version,sku,quantity,delivery_date\nP1,1,SKU,-1,2026-01-01\n"))
                .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(preview.statusCode()).as(preview.body()).isEqualTo(200);
        declares(JSON.readTree(preview.body()), "Preview");
        awaitSettled();
    }

    /** Every field of {@code value} is a property of the schema (recursively), and every required one is there. */
    private void declares(JsonNode value, String schemaName) {
        declares(value, document.at("/components/schemas/" + schemaName), schemaName);
    }

    private void declares(JsonNode value, JsonNode schema, String where) {
        assertThat(schema.isMissingNode()).as("schema at " + where).isFalse();
        if (schema.has("$ref")) {
            String ref = schema.get("$ref").asString();
            declares(value, document.at("/components/schemas/" + ref.substring(ref.lastIndexOf('/') + 1)),
                    where + "->" + ref);
            return;
        }
        if (value.isNull()) {
            return;
        }
        if (value.isObject()) {
            assertThat(schema.path("type").asString("object")).as(where).isEqualTo("object");
            JsonNode properties = schema.path("properties");
            JsonNode additional = schema.path("additionalProperties");
            for (Iterator<Map.Entry<String, JsonNode>> fields = value.properties().iterator(); fields.hasNext();) {
                Map.Entry<String, JsonNode> field = fields.next();
                if (properties.has(field.getKey())) {
                    declares(field.getValue(), properties.get(field.getKey()), where + "." + field.getKey());
                } else {
                    assertThat(additional.isObject() || additional.asBoolean(false))
                            .as(where + " does not declare the field '" + field.getKey() + "' of " + value).isTrue();
                    if (additional.isObject()) {
                        declares(field.getValue(), additional, where + "[" + field.getKey() + "]");
                    }
                }
            }
            for (JsonNode required : schema.path("required")) {
                assertThat(value.has(required.asString())).as(where + " lacks required " + required).isTrue();
            }
        } else if (value.isArray()) {
            assertThat(schema.path("type").asString()).as(where).isEqualTo("array");
            for (JsonNode item : value) {
                declares(item, schema.path("items"), where + "[]");
            }
        } else if (value.isIntegralNumber()) {
            assertThat(schema.path("type").asString()).as(where).isIn("integer", "number");
        } else if (value.isNumber()) {
            assertThat(schema.path("type").asString()).as(where).isEqualTo("number");
        } else if (value.isBoolean()) {
            assertThat(schema.path("type").asString()).as(where).isEqualTo("boolean");
        } else {
            assertThat(schema.path("type").asString()).as(where).isEqualTo("string");
        }
    }

    private static List<String> servers(JsonNode document) {
        List<String> urls = new ArrayList<>();
        document.path("servers").forEach(server -> urls.add(server.path("url").asString()));
        return urls;
    }

    private static List<String> refs(JsonNode node, List<String> into) {
        if (node.isObject()) {
            node.properties().iterator().forEachRemaining(field -> {
                if (field.getKey().equals("$ref")) {
                    into.add(field.getValue().asString());
                } else {
                    refs(field.getValue(), into);
                }
            });
        } else if (node.isArray()) {
            node.forEach(child -> refs(child, into));
        }
        return into;
    }
}
