package dev.ingestor.notification;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.RetentionSettings;
import dev.ingestor.metrics.IngestorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * The counts of notification outcomes as Prometheus scrapes them. The alert IngestorNotificationsGivenUp is
 * {@code increase(ingestor_notifications_total{outcome="gave_up"}[1h]) > 0}: a series that appears with its first
 * count, at 1, shows Prometheus no increase (there is no sample before it), so every outcome is exported at 0 from
 * the start.
 */
class NotificationCountsTest {

    @Test
    void everyTypeAndOutcomeIsScrapedAtZeroBeforeTheFirstNotificationIsGivenUp() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        IngestorMetrics metrics = new IngestorMetrics(registry);
        new NotificationDelivery(null, new IngestorProperties(), new NotificationSettings(), new RetentionSettings(),
                metrics, new JsonMapper());

        String before = registry.scrape();
        for (String type : NotificationWriter.TYPES) {
            for (String outcome : NotificationDelivery.OUTCOMES) {
                assertThat(before).as(type + " " + outcome).contains(
                        "ingestor_notifications_total{outcome=\"" + outcome + "\",type=\"" + type + "\"} 0.0");
            }
        }
        // the first one given up after a start is an increase from 0 to 1, which fires the alert
        metrics.notification(NotificationWriter.JOB_FAILED, "gave_up");
        assertThat(registry.scrape())
                .contains("ingestor_notifications_total{outcome=\"gave_up\",type=\"job.failed\"} 1.0");
    }
}
