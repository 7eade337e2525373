package dev.ingestor.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

import dev.ingestor.support.IngestorTestSupport;
import org.apache.camel.spi.RestRegistry;
import org.apache.camel.support.PluginHelper;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The API is described in src/main/resources/openapi.yaml and answered by the rest: definitions of
 * routes/*.camel.yaml; neither is made from the other, so this holds them together: every REST operation the
 * running app answers is in the served document and every operation of the document is answered, under the same
 * method and path, and an operation that takes a body documents exactly the content types its route takes (any
 * other is answered 415).
 */
class OpenApiMatchesRoutesTest extends IngestorTestSupport {

    @Test
    void everyRestOperationIsDocumentedAndEveryDocumentedOperationIsAnswered() throws Exception {
        HttpResponse<String> response = get("/api/v1/openapi.json", null);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode document = JSON.readTree(response.body());

        Map<String, JsonNode> documented = new TreeMap<>();
        document.path("paths").properties().forEach(path -> path.getValue().properties().forEach(
                method -> documented.put(method.getKey().toUpperCase() + " " + path.getKey(), method.getValue())));
        Map<String, RestRegistry.RestService> answered = new TreeMap<>();
        for (RestRegistry.RestService service : PluginHelper.getRestRegistry(camelContext).listAllRestServices()) {
            String path = (service.getBasePath() + (service.getUriTemplate() == null ? "" : service.getUriTemplate()))
                    .replaceAll("/+", "/");
            answered.put(service.getMethod().toUpperCase() + " " + path, service);
        }

        assertThat(answered.keySet()).as("REST operations the app answers").hasSizeGreaterThanOrEqualTo(22);
        assertThat(documented.keySet()).as("the document's operations, against the routes'")
                .containsExactlyInAnyOrderElementsOf(answered.keySet());
        answered.forEach((operation, service) -> {
            JsonNode content = documented.get(operation).path("requestBody").path("content");
            if (service.getConsumes() != null) {
                assertThat(content.propertyNames()).as(operation + " request content types")
                        .containsExactlyInAnyOrderElementsOf(
                                Arrays.stream(service.getConsumes().split(",")).map(String::trim).toList());
            } else {
                assertThat(content.isMissingNode()).as(operation + " documents a body its route does not take")
                        .isTrue();
            }
        });
    }
}
