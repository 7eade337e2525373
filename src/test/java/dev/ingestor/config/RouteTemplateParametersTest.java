package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Route template parameters are documented where the template is, as Camel's Kamelets document theirs: each has a
 * description, and a default where the configuration has one, the same default (a template read on its own must
 * not promise another value than the one the installers pass for an unconfigured supplier).
 */
class RouteTemplateParametersTest {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @ParameterizedTest(name = "{0}")
    @MethodSource("dev.ingestor.config.RoutesSchemaTest#routeFiles")
    void everyTemplateParameterHasADescription(Path file) throws IOException {
        parameters(file).forEach((name, parameter) -> assertThat(parameter.path("description").asText(""))
                .as("description of %s in %s", name, file).isNotBlank());
    }

    @Test
    void theTemplatesAreTheOnesDocumented() throws IOException {
        Map<String, JsonNode> all = new LinkedHashMap<>();
        for (Path file : RoutesSchemaTest.routeFiles().toList()) {
            all.putAll(parameters(file));
        }
        assertThat(all.keySet()).contains("file-drop.supplier", "sftp-pull.host", "stage-worker.claim",
                "outbox-relay.topic");
    }

    @Test
    void defaultsAreTheConfigurationDefaults() throws IOException {
        SupplierProperties.FileDrop drop = new SupplierProperties().getFileDrop();
        SupplierProperties.Sftp sftp = new SupplierProperties().getSftp();
        Map<String, JsonNode> fileDrop = parameters(Path.of("routes/source-file-drop.camel.yaml"));
        Map<String, JsonNode> sftpPull = parameters(Path.of("routes/source-sftp.camel.yaml"));
        assertThat(defaultOf(fileDrop, "file-drop.minAge")).isEqualTo(String.valueOf(drop.getMinAge().toMillis()));
        assertThat(defaultOf(fileDrop, "file-drop.pollDelay"))
                .isEqualTo(String.valueOf(drop.getPollInterval().toMillis()));
        assertThat(drop.getReadLock()).isEqualTo(SupplierProperties.ReadLock.CHANGED);
        // read lock changed with a min-age: the filter waits for the file to settle, the read lock is the claim only
        assertThat(drop.getMinAge()).isPositive();
        assertThat(defaultOf(fileDrop, "file-drop.readLock")).isEqualTo("idempotent");
        assertThat(defaultOf(sftpPull, "sftp-pull.port")).isEqualTo(String.valueOf(sftp.getPort()));
        assertThat(defaultOf(sftpPull, "sftp-pull.pollDelay"))
                .isEqualTo(String.valueOf(sftp.getPollInterval().toMillis()));
        assertThat(defaultOf(sftpPull, "sftp-pull.backoffMultiplier"))
                .isEqualTo(String.valueOf(sftp.getBackoffMultiplier()));
        assertThat(defaultOf(sftpPull, "sftp-pull.strictHostKeyChecking"))
                .isEqualTo(sftp.isStrictHostKeyChecking() ? "yes" : "no");
        String maxFilesPerPoll = String.valueOf(new dev.ingestor.intake.IntakeSettings().getMaxFilesPerPoll());
        assertThat(defaultOf(fileDrop, "file-drop.maxFilesPerPoll")).isEqualTo(maxFilesPerPoll);
        assertThat(defaultOf(sftpPull, "sftp-pull.maxFilesPerPoll")).isEqualTo(maxFilesPerPoll);
        assertThat(defaultOf(sftpPull, "sftp-pull.delete"))
                .isEqualTo(String.valueOf(sftp.getAfterPickup() == SupplierProperties.AfterPickup.DELETE));
    }

    /** The parameters of every route template in a file, by template id and parameter name. */
    private static Map<String, JsonNode> parameters(Path file) throws IOException {
        Map<String, JsonNode> found = new LinkedHashMap<>();
        for (JsonNode entry : YAML.readTree(file.toFile())) {
            JsonNode template = entry.path("routeTemplate");
            for (JsonNode parameter : template.path("parameters")) {
                found.put(template.path("id").asText() + "." + parameter.path("name").asText(), parameter);
            }
        }
        return found;
    }

    private static String defaultOf(Map<String, JsonNode> parameters, String name) {
        assertThat(parameters).as("template parameter %s", name).containsKey(name);
        return parameters.get(name).path("defaultValue").asText(null);
    }
}
