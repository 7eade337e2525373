package dev.ingestor.notification;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.RetentionSettings;
import dev.ingestor.metrics.IngestorMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The wait before the next attempt of a notification: delay, doubled per failed attempt, never over maximum-delay. */
class NotificationBackoffTest {

    @Test
    void theWaitDoublesUpToTheMaximum() {
        NotificationSettings settings = new NotificationSettings();
        settings.setDelay(Duration.ofSeconds(10));
        settings.setMaximumDelay(Duration.ofSeconds(70));
        NotificationDelivery delivery = new NotificationDelivery(null, new IngestorProperties(), settings,
                new RetentionSettings(), new IngestorMetrics(new SimpleMeterRegistry()),
                new JsonMapper());

        assertThat(delivery.backoff(1)).isEqualTo(Duration.ofSeconds(10));
        assertThat(delivery.backoff(2)).isEqualTo(Duration.ofSeconds(20));
        assertThat(delivery.backoff(3)).isEqualTo(Duration.ofSeconds(40));
        assertThat(delivery.backoff(4)).isEqualTo(Duration.ofSeconds(70));
        assertThat(delivery.backoff(1000)).isEqualTo(Duration.ofSeconds(70));
    }
}
