package dev.ingestor.notification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.UUID;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.RetentionSettings;
import dev.ingestor.metrics.IngestorMetrics;
import dev.ingestor.support.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A webhook's delivery lane on one instance: busy while its POSTs are under way, free again once they are settled. */
@Timeout(60)
class NotificationLaneTest {

    private static JdbcTemplate jdbc;

    @BeforeAll
    static void database() {
        jdbc = TestPostgres.migrated("notification_lanes");
    }

    /**
     * An Error thrown while a POST is made (a stack overflow, memory run out building the body) ended the round
     * with the webhook's lane marked busy and nothing left to free it: this instance sent that webhook nothing more
     * until it restarted. It is a failed attempt, as a request that cannot be made is, and the lane goes on.
     */
    @Test
    void anErrorWhileAPostIsMadeIsAFailedAttemptAndTheLaneGoesOn() {
        jdbc.update("DELETE FROM notification");
        NotificationSettings settings = new NotificationSettings();
        settings.setWebhookUrl("http://127.0.0.1:1/hook"); // refused at once: each attempt fails fast
        NotificationDelivery delivery = new NotificationDelivery(jdbc, new IngestorProperties(), settings,
                new RetentionSettings(), new IngestorMetrics(new SimpleMeterRegistry()), new JsonMapper() {
                    @Override
                    public JsonNode readTree(String content) {
                        throw new StackOverflowError("building the body of a coalesced notice");
                    }
                });
        // a coalesced notice (its body is built with the mapper above) and, due after it, a plain one
        jdbc.update("INSERT INTO notification (event_id, type, destination, payload, coalesce_key, first_at, last_at,"
                + " due_from, next_attempt_at) VALUES (?, 'intake.rejected', '*', '{}', 'kind', now(), now(), now(),"
                + " now() - interval '1 minute')", UUID.randomUUID());
        jdbc.update("INSERT INTO notification (event_id, type, destination, payload, next_attempt_at)"
                + " VALUES (?, 'relay.stalled', '*', '{}', now() - interval '1 minute')", UUID.randomUUID());
        settings.setBatchSize(1);

        assertThat(round(delivery)).isEqualTo(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject(
                "SELECT last_error FROM notification WHERE type = 'intake.rejected'", String.class) != null);
        assertThat(jdbc.queryForObject("SELECT last_error FROM notification WHERE type = 'intake.rejected'",
                String.class)).isEqualTo("StackOverflowError");
        // the lane is free again: the next round takes the other notice of that webhook
        await().atMost(Duration.ofSeconds(10)).until(() -> round(delivery) == 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject(
                "SELECT attempts FROM notification WHERE type = 'relay.stalled'", Integer.class) == 1);
    }

    /** One round as the route runs it: its bean step turns an Error into the exchange's failure, and polls on. */
    private static int round(NotificationDelivery delivery) {
        try {
            return delivery.deliverDue();
        } catch (Error e) {
            return -1;
        }
    }
}
