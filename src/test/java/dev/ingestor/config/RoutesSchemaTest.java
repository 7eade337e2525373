package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every route file must be valid against the JSON schema that ships inside camel-yaml-dsl: Kaoto and the VS Code
 * Camel tooling validate with it, so a route that only Camel's lenient loader accepts shows up as broken to the
 * engineers who edit it there. The schema is read from the jar on the class path, so it follows the Camel version.
 */
class RoutesSchemaTest {

    private static final Path ROUTES = Path.of("routes");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private static JsonSchema schema;

    @BeforeAll
    static void loadSchema() throws IOException {
        try (InputStream in = RoutesSchemaTest.class.getClassLoader().getResourceAsStream("schema/camelYamlDsl.json")) {
            assertThat(in).as("schema/camelYamlDsl.json from camel-yaml-dsl on the class path").isNotNull();
            JsonNode node = new ObjectMapper().readTree(in);
            assertThat(node.path("$schema").asText()).as("the schema's draft").contains("draft-04");
            schema = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4).getSchema(node);
        }
    }

    static Stream<Path> routeFiles() throws IOException {
        try (Stream<Path> files = Files.list(ROUTES)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".camel.yaml")).sorted().toList().stream();
        }
    }

    @Test
    void theRoutesDirectoryHasRouteFiles() throws IOException {
        assertThat(routeFiles()).isNotEmpty();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("routeFiles")
    void routeFileIsValidAgainstCamelsYamlDslSchema(Path file) throws IOException {
        Set<ValidationMessage> errors = schema.validate(YAML.readTree(file.toFile()));
        List<String> messages = errors.stream().map(ValidationMessage::getMessage).sorted().toList();
        assertThat(messages).as("schema errors in %s", file).isEmpty();
    }

    @Test
    void theSchemaRejectsWhatItShould() throws IOException {
        // guards against a validator that accepts anything: a misspelt key must be reported
        JsonNode broken = YAML
                .readTree("- route:\n    id: x\n    from:\n      uri: direct:x\n      steps:\n        - toh: log:x\n");
        assertThat(schema.validate(broken)).isNotEmpty();
    }
}
