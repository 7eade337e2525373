package dev.ingestor.notification;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.RetentionSettings;
import dev.ingestor.config.SupplierProperties;
import dev.ingestor.metrics.IngestorMetrics;
import dev.ingestor.support.CapturedLogs;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * A webhook with a URL and no secret is sent its notifications without X-Ingestor-Signature: legitimate (some
 * services take their secret in the URL), but a receiver that checks the header refuses every one. Said once at
 * start, per such webhook, naming the property that signs them; never quoting the URL, which may hold a secret.
 */
class UnsignedWebhookTest {

    @Test
    void eachWebhookWithoutASecretIsWarnedOfOnceAtStartNamingThePropertyToSet() {
        NotificationSettings settings = new NotificationSettings();
        settings.setWebhookUrl("https://hooks.example.com/services/T0KEN-IN-THE-URL");
        IngestorProperties properties = new IngestorProperties();
        properties.getSuppliers().put("ACME", supplier("https://acme.example.com/hook", ""));
        properties.getSuppliers().put("GLOBEX", supplier("https://globex.example.com/hook", "globex-secret"));
        properties.getSuppliers().put("INITECH", supplier("", ""));

        try (CapturedLogs logs = CapturedLogs.of(NotificationDelivery.class.getName())) {
            start(properties, settings);
            assertThat(logs.events()).allSatisfy(line -> assertThat(line.getLevel()).isEqualTo(Level.WARN));
            assertThat(logs.messages()).hasSize(2);
            assertThat(logs.count("ingestor.notifications.secret")).isEqualTo(1);
            assertThat(logs.count("ingestor.suppliers.ACME.notifications.secret")).isEqualTo(1);
            assertThat(logs.count("X-Ingestor-Signature")).isEqualTo(2);
            assertThat(String.join("\n", logs.messages())).doesNotContain("GLOBEX").doesNotContain("INITECH")
                    .doesNotContain("T0KEN-IN-THE-URL").doesNotContain("acme.example.com");
        }
    }

    @Test
    void signedWebhooksAndNoWebhookAreNotWarnedOf() {
        NotificationSettings settings = new NotificationSettings();
        settings.setWebhookUrl("https://hooks.example.com/ingestor");
        settings.setSecret("installation-secret");
        IngestorProperties properties = new IngestorProperties();
        properties.getSuppliers().put("GLOBEX", supplier("https://globex.example.com/hook", "globex-secret"));
        try (CapturedLogs logs = CapturedLogs.of(NotificationDelivery.class.getName())) {
            start(properties, settings);
            start(new IngestorProperties(), new NotificationSettings());
            assertThat(logs.messages()).isEmpty();
        }
    }

    private static void start(IngestorProperties properties, NotificationSettings settings) {
        new NotificationDelivery(null, properties, settings, new RetentionSettings(),
                new IngestorMetrics(new SimpleMeterRegistry()), new JsonMapper());
    }

    private static SupplierProperties supplier(String webhookUrl, String secret) {
        SupplierProperties supplier = new SupplierProperties();
        supplier.getNotifications().setWebhookUrl(webhookUrl);
        supplier.getNotifications().setSecret(secret);
        return supplier;
    }
}
