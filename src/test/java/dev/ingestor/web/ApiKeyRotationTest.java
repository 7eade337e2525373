package dev.ingestor.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

import dev.ingestor.IngestorApplication;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.TestKafka;
import dev.ingestor.support.TestPostgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Rotating a supplier's API key without a gap: while both hashes are configured
 * ({@code ingestor.suppliers.<CODE>.api-key-sha256} is a list) the old and the new key reach the same
 * supplier; once the old hash is removed and the application restarted, the old key is refused with 401 and
 * the new one still reaches everything of the supplier. The real application, started twice as an operator
 * would, over HTTP on a database of its own.
 */
@Timeout(240)
// slow tier: two application instances started one after the other
@SlowTest
class ApiKeyRotationTest {

    private static final String OLD_KEY = "acme-demo-key";
    private static final String NEW_KEY = "acme-rotated-" + UUID.randomUUID();
    private static final ObjectMapper JSON = new JsonMapper();

    private final Path work = createWork();
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void bothKeysWorkDuringTheRotationAndTheOldOneIsRefusedOnceItIsRemoved() throws Exception {
        String jobPath;
        try (ConfigurableApplicationContext app = start(ApiKeys.sha256(OLD_KEY) + "," + ApiKeys.sha256(NEW_KEY))) {
            int port = port(app);
            // a push with the new key, read back with the old one: both keys are the same supplier
            HttpResponse<String> pushed = http.send(HttpRequest.newBuilder(uri(port, "/api/v1/suppliers/ACME/files"))
                    .header("X-Api-Key", NEW_KEY).header("Content-Type", "text/csv")
                    .POST(HttpRequest.BodyPublishers
                            .ofString("source_id,sku,quantity,delivery_date\nR-1,SKU,1,2026-12-01\n"
                                    + UUID.randomUUID() + "\n", StandardCharsets.UTF_8))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(pushed.statusCode()).as(pushed.body()).isEqualTo(202);
            jobPath = "/api/v1/jobs/" + JSON.readTree(pushed.body()).get("id").asString();

            HttpResponse<String> readWithOld = get(port, jobPath, OLD_KEY);
            assertThat(readWithOld.statusCode()).as(readWithOld.body()).isEqualTo(200);
            assertThat(JSON.readTree(readWithOld.body()).get("supplier").asString()).isEqualTo("ACME");
            assertThat(get(port, jobPath, NEW_KEY).statusCode()).isEqualTo(200);
            // and a key of neither is still refused
            assertThat(get(port, jobPath, "acme-guessed-key").statusCode()).isEqualTo(401);
        }

        try (ConfigurableApplicationContext app = start(ApiKeys.sha256(NEW_KEY))) {
            int port = port(app);
            HttpResponse<String> old = get(port, jobPath, OLD_KEY);
            assertThat(old.statusCode()).as(old.body()).isEqualTo(401);
            assertThat(old.headers().firstValue("Content-Type"))
                    .hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
            assertThat(JSON.readTree(old.body()).get("detail").asString()).contains("not valid");
            assertThat(get(port, "/api/v1/jobs", OLD_KEY).statusCode()).isEqualTo(401);

            HttpResponse<String> current = get(port, jobPath, NEW_KEY);
            assertThat(current.statusCode()).as(current.body()).isEqualTo(200);
            JsonNode job = JSON.readTree(current.body());
            assertThat(job.get("supplier").asString()).isEqualTo("ACME");
        }
    }

    /** The application as deployed, with this supplier key list; file drops and the stages are not needed here. */
    private ConfigurableApplicationContext start(String acmeKeyHashes) {
        return new SpringApplicationBuilder(IngestorApplication.class).run(
                "--server.port=0",
                "--spring.datasource.url=" + TestPostgres.jdbcUrl("rotation"),
                "--ingestor.instance-id=rotation",
                "--ingestor.inbox-dir=" + work.resolve("inbox"),
                "--ingestor.data-dir=" + work.resolve("data"),
                "--ingestor.intake.fsync=false",
                "--ingestor.pipeline.enabled=false",
                "--ingestor.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
                "--ingestor.suppliers.ACME.file-drop.enabled=false",
                "--ingestor.suppliers.GLOBEX.file-drop.enabled=false",
                "--ingestor.suppliers.ACME.api-key-sha256=" + acmeKeyHashes);
    }

    private static int port(ConfigurableApplicationContext app) {
        return ((WebServerApplicationContext) app).getWebServer().getPort();
    }

    private HttpResponse<String> get(int port, String path, String key) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri(port, path)).header("Authorization", "Bearer " + key).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(int port, String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static Path createWork() {
        try {
            return Files.createTempDirectory("ingestor-rotation-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
