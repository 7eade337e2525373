package dev.ingestor.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The deployment files as shipped: the image runs as a non-root user, and docker-compose never runs with a
 * demo key or a default password (each secret is a required variable, {@code ${VAR:?message}}).
 */
class DeploymentFilesTest {

    /** {@code ${NAME:?message}}: compose refuses to start while NAME is unset or empty. */
    private static final Pattern REQUIRED_VARIABLE = Pattern.compile("\\$\\{([A-Z0-9_]+):\\?[^}]+}");

    @Test
    void theImageRunsAsANonRootUserOfAFixedUid() throws Exception {
        List<String> lines = Files.readAllLines(Path.of("Dockerfile"));
        int lastFrom = 0;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("FROM ")) {
                lastFrom = i;
            }
        }
        List<String> users = lines.subList(lastFrom, lines.size()).stream().filter(line -> line.startsWith("USER "))
                .toList();
        assertThat(users).as("USER in the final stage of the Dockerfile").isNotEmpty();
        String user = users.get(users.size() - 1).substring("USER ".length()).trim();
        assertThat(user).matches("[1-9][0-9]*(:[0-9]+)?");
        assertThat(String.join("\n", lines)).contains("chown ingestor:ingestor /app/inbox /app/data");
    }

    /** Out of memory the JVM exits rather than going on with some threads ended, and compose starts it again. */
    @Test
    void theImageExitsWhenOutOfMemoryAndComposeStartsItAgain() throws Exception {
        List<String> entrypoints = Files.readAllLines(Path.of("Dockerfile")).stream()
                .filter(line -> line.startsWith("ENTRYPOINT ")).toList();
        assertThat(entrypoints).hasSize(1);
        assertThat(entrypoints.get(0)).contains("\"-XX:+ExitOnOutOfMemoryError\", \"-jar\"");
        Map<String, Object> services = map(new Yaml().<Map<String, Object>>load(
                Files.readString(Path.of("docker-compose.yml"))), "services");
        assertThat(map(services, "ingestor").get("restart")).isIn("unless-stopped", "always", "on-failure");
    }

    @Test
    void composeHasNoDemoKeyAndRequiresEverySecret() throws Exception {
        String compose = Files.readString(Path.of("docker-compose.yml"));
        for (String demo : ApiKeys.DEMO_KEY_HASHES) {
            assertThat(compose).as("a demo key hash in docker-compose.yml").doesNotContainIgnoringCase(demo);
        }
        Map<String, Object> services = map(new Yaml().<Map<String, Object>>load(compose), "services");
        Map<String, Object> app = map(map(services, "ingestor"), "environment");
        assertThat(app.get("SERVER_ADDRESS")).isEqualTo("0.0.0.0");
        for (String secret : List.of("SPRING_DATASOURCE_PASSWORD", "INGESTOR_ADMIN_APIKEYSHA256")) {
            assertThat(String.valueOf(app.get(secret))).as(secret).matches(REQUIRED_VARIABLE);
        }
        assertThat(String.valueOf(map(map(services, "postgres"), "environment").get("POSTGRES_PASSWORD")))
                .matches(REQUIRED_VARIABLE);

        // every supplier of application.yaml with a (demo) key gets its own key from the environment
        JsonNode suppliers = new JsonMapper().readTree(interpolate((String) app.get("SPRING_APPLICATION_JSON")))
                .path("ingestor").path("suppliers");
        Map<String, Object> defaults = map(map(new Yaml().<Map<String, Object>>load(
                Files.readString(Path.of("src/main/resources/application.yaml"))), "ingestor"), "suppliers");
        assertThat(defaults).isNotEmpty();
        defaults.forEach((code, supplier) -> {
            if (((Map<?, ?>) supplier).containsKey("api-key-sha256")) {
                assertThat(suppliers.path(code).path("api-key-sha256").asString()).as("key of " + code)
                        .startsWith("required:");
            }
        });
        // and every SFTP supplier checks the server's host key
        suppliers.properties().iterator().forEachRemaining(supplier -> {
            JsonNode sftp = supplier.getValue().path("sftp");
            if (!sftp.isMissingNode()) {
                assertThat(sftp.path("known-hosts-file").asString()).as("known hosts of " + supplier.getKey())
                        .isNotBlank();
                assertThat(sftp.path("strict-host-key-checking").asString("true")).isEqualTo("true");
                assertThat(sftp.path("password").asString()).startsWith("required:");
            }
        });
    }

    /** What compose makes of the required variables, each marked so a test can see where it was. */
    private static String interpolate(String text) {
        Matcher m = REQUIRED_VARIABLE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, "required:" + m.group(1));
        }
        return m.appendTail(out).toString();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Map<String, Object> parent, String key) {
        assertThat(parent).containsKey(key);
        return (Map<String, Object>) parent.get(key);
    }
}
