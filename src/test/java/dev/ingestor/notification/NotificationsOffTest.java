package dev.ingestor.notification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.UUID;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.SupplierProperties;
import dev.ingestor.outbox.DeadLetterWriter;
import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.ObjectMapper;

/**
 * With no webhook configured (the default) nothing is written, whatever happens; a supplier's own webhook is
 * told of that supplier's events only. The writer here has the defaults (the test contexts all have webhooks).
 */
@Timeout(60)
class NotificationsOffTest extends IngestorTestSupport {

    @Autowired
    private ObjectMapper json;

    private long rows() {
        return jdbc.queryForObject("SELECT count(*) FROM notification", Long.class);
    }

    @Test
    void noWebhookNoNotificationRows() {
        NotificationWriter writer = new NotificationWriter(jdbc, json, new IngestorProperties(),
                new NotificationSettings());
        writer.jobFailed(UUID.randomUUID(), "ACME", "ACME:00", "validation failed");
        writer.deadLetter(new DeadLetterWriter.Recorded(1,
                new DeadLetterWriter.Failure(null, "ACME", null, "validation", "E", "m", 1)));
        writer.intakeFailure(1, "ACME", "file-drop", "a.csv", "rejected", "unusable name");
        writer.relayStalled(Instant.now(), 1);
        assertThat(rows()).isZero();
    }

    @Test
    void aSuppliersOwnWebhookAloneIsToldOfThatSuppliersEventsOnly() {
        IngestorProperties properties = new IngestorProperties();
        SupplierProperties acme = new SupplierProperties();
        acme.getNotifications().setWebhookUrl("http://127.0.0.1:9/acme");
        properties.getSuppliers().put("ACME", acme);
        properties.getSuppliers().put("GLOBEX", new SupplierProperties());
        NotificationWriter writer = new NotificationWriter(jdbc, json, properties, new NotificationSettings());
        writer.jobFailed(UUID.randomUUID(), "GLOBEX", "GLOBEX:00", "validation failed");
        writer.relayStalled(Instant.now(), 1);
        assertThat(rows()).isZero();
        writer.jobFailed(UUID.randomUUID(), "ACME", "ACME:00", "validation failed");
        assertThat(jdbc.queryForMap("SELECT destination, supplier FROM notification"))
                .containsEntry("destination", "ACME").containsEntry("supplier", "ACME");
    }

    @Test
    void aWebhookUrlThatCannotBeSentToStopsTheStartNamingThePropertyButNotTheUrl() {
        for (String bad : new String[] {"https://hooks.example/services/T0/SECRETTOKEN xyz", "ftp://hooks.example/x",
                "/relative/SECRETTOKEN"}) {
            IngestorProperties properties = new IngestorProperties();
            SupplierProperties acme = new SupplierProperties();
            acme.getNotifications().setWebhookUrl(bad);
            properties.getSuppliers().put("ACME", acme);
            assertThatThrownBy(() -> new NotificationWriter(jdbc, json, properties, new NotificationSettings()))
                    .hasMessageContaining("ingestor.suppliers.ACME.notifications.webhook-url")
                    .hasMessageNotContaining("SECRETTOKEN");
        }
        NotificationSettings installation = new NotificationSettings();
        installation.setWebhookUrl("hooks.example/no-scheme");
        assertThatThrownBy(() -> new NotificationWriter(jdbc, json, new IngestorProperties(), installation))
                .hasMessageContaining("ingestor.notifications.webhook-url");
    }
}
