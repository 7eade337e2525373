package dev.ingestor.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The served /api/v1/openapi.json promises at least what src/test/resources/openapi/baseline.json promised: the
 * document as camel-openapi-java generated it from the REST DSL, saved when the API came to be described in one
 * document (src/main/resources/openapi.yaml). A client generated from the baseline keeps working against the app:
 * every path and operation (same operationId, summary, deprecation), every parameter (same place and required-ness),
 * every request body (at least the same content types), every response code with the same description and a schema
 * of the same name, the security schemes, and every schema with at least the same properties of the same types.
 */
class OpenApiBaselineTest extends IngestorTestSupport {

    /**
     * Baseline schemas the served document no longer has. JsonNode was Jackson's node class described as a bean
     * (array, nodeType, textual...), not what an item version's record is: that is now an object of the supplier's
     * fields.
     */
    private static final Set<String> SCHEMAS_REPLACED = Set.of("JsonNode");

    private JsonNode baseline;
    private JsonNode served;

    @BeforeEach
    void documents() throws Exception {
        try (InputStream in = getClass().getResourceAsStream("/openapi/baseline.json")) {
            baseline = JSON.readTree(in);
        }
        HttpResponse<String> response = get("/api/v1/openapi.json", null);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        served = JSON.readTree(response.body());
    }

    @Test
    void everyOperationOfTheBaselineIsServedWithItsParametersAndAnswers() {
        List<String> operations = new ArrayList<>();
        for (Map.Entry<String, JsonNode> path : fields(baseline.path("paths"))) {
            for (Map.Entry<String, JsonNode> method : fields(path.getValue())) {
                String name = method.getKey().toUpperCase() + " " + path.getKey();
                operations.add(name);
                JsonNode before = method.getValue();
                JsonNode now = served.path("paths").path(path.getKey()).path(method.getKey());
                assertThat(now.isObject()).as(name + " is served").isTrue();
                assertThat(now.path("operationId").asString()).as(name)
                        .isEqualTo(before.path("operationId").asString());
                assertThat(now.path("summary").asString()).as(name).isEqualTo(before.path("summary").asString());
                assertThat(now.path("deprecated").asBoolean(false)).as(name)
                        .isEqualTo(before.path("deprecated").asBoolean(false));
                parameters(name, before, now);
                requestBody(name, before, now);
                responses(name, before, now);
            }
        }
        assertThat(operations).hasSizeGreaterThanOrEqualTo(22);
    }

    @Test
    void theSecuritySchemesInfoAndSchemasOfTheBaselineAreServed() {
        assertThat(served.path("info").path("title").asString())
                .isEqualTo(baseline.path("info").path("title").asString());
        assertThat(served.path("info").path("version").asString())
                .isEqualTo(baseline.path("info").path("version").asString());
        for (Map.Entry<String, JsonNode> scheme : fields(baseline.at("/components/securitySchemes"))) {
            JsonNode now = served.at("/components/securitySchemes").path(scheme.getKey());
            for (String field : List.of("type", "name", "in", "scheme")) {
                assertThat(now.path(field).asString("")).as(scheme.getKey() + "." + field)
                        .isEqualTo(scheme.getValue().path(field).asString(""));
            }
        }
        List<String> required = new ArrayList<>();
        served.path("security").forEach(requirement -> requirement.propertyNames().forEach(required::add));
        baseline.path("security").forEach(requirement -> requirement.propertyNames()
                .forEach(scheme -> assertThat(required).as("security").contains(scheme)));

        for (Map.Entry<String, JsonNode> schema : fields(baseline.at("/components/schemas"))) {
            if (SCHEMAS_REPLACED.contains(schema.getKey())) {
                continue;
            }
            JsonNode now = served.at("/components/schemas").path(schema.getKey());
            assertThat(now.isObject()).as("schema " + schema.getKey()).isTrue();
            for (Map.Entry<String, JsonNode> property : fields(schema.getValue().path("properties"))) {
                String where = schema.getKey() + "." + property.getKey();
                JsonNode declared = now.path("properties").path(property.getKey());
                assertThat(declared.isObject()).as(where).isTrue();
                JsonNode type = property.getValue().has("$ref")
                        ? property.getValue().path("$ref")
                        : property.getValue().path("type");
                JsonNode typeNow = declared.has("$ref") ? declared.path("$ref") : declared.path("type");
                if (!property.getValue().path("$ref").asString("").endsWith("/JsonNode")) {
                    assertThat(typeNow.asString("")).as(where).isEqualTo(type.asString(""));
                }
            }
        }
    }

    private static void parameters(String name, JsonNode before, JsonNode now) {
        for (JsonNode parameter : before.path("parameters")) {
            String what = name + " parameter " + parameter.path("in").asString() + " "
                    + parameter.path("name").asString();
            JsonNode match = null;
            for (JsonNode candidate : now.path("parameters")) {
                if (candidate.path("name").asString().equals(parameter.path("name").asString())
                        && candidate.path("in").asString().equals(parameter.path("in").asString())) {
                    match = candidate;
                }
            }
            assertThat(match).as(what).isNotNull();
            assertThat(match.path("required").asBoolean(false)).as(what)
                    .isEqualTo(parameter.path("required").asBoolean(false));
            if (parameter.has("description")) {
                assertThat(match.path("description").asString("")).as(what).isNotBlank();
            }
        }
    }

    private static void requestBody(String name, JsonNode before, JsonNode now) {
        if (!before.has("requestBody")) {
            return;
        }
        JsonNode body = now.path("requestBody");
        assertThat(body.path("required").asBoolean(false)).as(name + " body required")
                .isEqualTo(before.path("requestBody").path("required").asBoolean(false));
        assertThat(body.path("content").propertyNames()).as(name + " body content types")
                .containsAll(before.path("requestBody").path("content").propertyNames());
    }

    private static void responses(String name, JsonNode before, JsonNode now) {
        for (Map.Entry<String, JsonNode> response : fields(before.path("responses"))) {
            String what = name + " " + response.getKey();
            JsonNode answer = now.path("responses").path(response.getKey());
            assertThat(answer.isObject()).as(what).isTrue();
            assertThat(answer.path("description").asString()).as(what)
                    .isEqualTo(response.getValue().path("description").asString());
            List<String> schemasBefore = new ArrayList<>();
            response.getValue().path("content")
                    .forEach(media -> schemasBefore.add(media.path("schema").path("$ref").asString("")));
            List<String> schemasNow = new ArrayList<>();
            answer.path("content").forEach(media -> schemasNow.add(media.path("schema").path("$ref").asString("")));
            assertThat(schemasNow).as(what + " schemas").isNotEmpty().containsAll(schemasBefore);
        }
    }

    private static Set<Map.Entry<String, JsonNode>> fields(JsonNode node) {
        return node.properties();
    }
}
