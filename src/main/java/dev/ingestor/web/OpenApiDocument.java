package dev.ingestor.web;

import java.io.IOException;
import java.io.InputStream;
import java.util.Date;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import org.springframework.core.io.ClassPathResource;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Serves the API's OpenAPI document, src/main/resources/openapi.yaml, as JSON at {@value #PATH} (public, see
 * dev.ingestor.security.FrontDoorSecurity).
 *
 * <p>The document is read once, at start; one that cannot be read, or that refers to a component it does not have,
 * stops the start. The file shares parameters, request bodies and problem answers through components; here each
 * reference to one of those is replaced by the component itself, so that every operation reads whole (only schemas
 * stay references), as client generators and the tests expect.
 *
 * <p>The server named is the address the caller used, so a client generated from the document calls the same
 * address: X-Forwarded-Proto, X-Forwarded-Host and X-Forwarded-Prefix when a proxy set them, otherwise the
 * request's own scheme and Host. Never the bind address.
 */
@RestController
public class OpenApiDocument {

    public static final String PATH = "/api/v1/openapi.json";
    static final String RESOURCE = "openapi.yaml";

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String INLINED = "#/components/";

    private final ObjectNode document;

    public OpenApiDocument() throws IOException {
        this.document = load(new ClassPathResource(RESOURCE));
    }

    @GetMapping(path = PATH)
    public ResponseEntity<byte[]> document(HttpServletRequest request) {
        ObjectNode answer = document.deepCopy();
        ArrayNode servers = answer.putArray("servers");
        String host = first(request.getHeader("X-Forwarded-Host"));
        if (host == null) {
            host = first(request.getHeader("Host"));
        }
        if (host == null) {
            host = request.getServerName() + ":" + request.getServerPort();
        }
        String prefix = first(request.getHeader("X-Forwarded-Prefix"));
        prefix = prefix == null ? "" : prefix.replaceAll("/+$", "");
        String protos = request.getHeader("X-Forwarded-Proto");
        if (protos == null || protos.isBlank()) {
            protos = request.getScheme();
        }
        for (String proto : protos.split(",")) {
            if (!proto.isBlank()) {
                servers.addObject().put("url", proto.trim().toLowerCase() + "://" + host + prefix);
            }
        }
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(JSON.writeValueAsBytes(answer));
    }

    /** The document of {@code resource}, its references to parameters, request bodies and responses written out. */
    static ObjectNode load(ClassPathResource resource) throws IOException {
        Object yaml;
        try (InputStream in = resource.getInputStream()) {
            yaml = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
        }
        if (!(yaml instanceof Map<?, ?>)) {
            throw new IllegalStateException(resource.getPath() + " is not an OpenAPI document (no mapping at its top)");
        }
        noDates(yaml, resource.getPath());
        ObjectNode document = (ObjectNode) JSON.valueToTree(yaml);
        JsonNode inlined = inline(document, document, resource.getPath(), 0);
        ObjectNode components = (ObjectNode) inlined.path("components");
        for (String shared : new String[] {"parameters", "requestBodies", "responses"}) {
            components.remove(shared);
        }
        return (ObjectNode) inlined;
    }

    private static JsonNode inline(JsonNode node, ObjectNode document, String where, int depth) {
        if (depth > 64) {
            throw new IllegalStateException(where + " refers to its components in a circle");
        }
        if (node.isObject()) {
            String ref = node.path("$ref").asString("");
            if (node.size() == 1 && ref.startsWith(INLINED) && !ref.startsWith(INLINED + "schemas/")) {
                JsonNode target = document.at(ref.substring(1));
                if (!target.isObject()) {
                    throw new IllegalStateException(where + " refers to " + ref + ", which it does not have");
                }
                return inline(target, document, where, depth + 1);
            }
            ObjectNode copy = JSON.createObjectNode();
            node.properties()
                    .forEach(field -> copy.set(field.getKey(), inline(field.getValue(), document, where, depth)));
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = JSON.createArrayNode();
            node.forEach(item -> copy.add(inline(item, document, where, depth)));
            return copy;
        }
        return node;
    }

    /** A date written without quotes is read as a date by YAML, and would be served as a number: quote it. */
    private static void noDates(Object yaml, String where) {
        if (yaml instanceof Date) {
            throw new IllegalStateException(where + " has a date without quotes (" + yaml + "); write it in quotes");
        } else if (yaml instanceof Map<?, ?> map) {
            map.values().forEach(value -> noDates(value, where));
        } else if (yaml instanceof Iterable<?> list) {
            list.forEach(value -> noDates(value, where));
        }
    }

    private static String first(String header) {
        if (header == null || header.isBlank()) {
            return null;
        }
        String value = header.split(",")[0].trim();
        return value.isEmpty() ? null : value;
    }
}
