package dev.ingestor.operations;

import java.sql.Timestamp;
import java.time.Duration;

import dev.ingestor.notification.NotificationSettings;
import dev.ingestor.notification.NotificationWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Tells the webhook once per episode that the Kafka relay is stalled: the oldest unpublished outbox event is
 * older than {@code ingestor.notifications.relay-stalled-after}. The episode is the row of table relay_stall,
 * locked while it is checked, so two instances checking at once write one notification between them; it ends
 * when the backlog is younger again, and the next stall is a new episode with a new notification.
 */
@Component("relayStallWatch")
public class RelayStallWatch {

    private static final Logger LOG = LoggerFactory.getLogger(RelayStallWatch.class);

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final NotificationWriter notifications;
    private final Duration stalledAfter;
    private final boolean webhook;

    public RelayStallWatch(JdbcTemplate jdbc, PlatformTransactionManager transactionManager,
            NotificationWriter notifications, NotificationSettings settings) {
        this.jdbc = jdbc;
        this.transactions = new TransactionTemplate(transactionManager);
        this.notifications = notifications;
        this.stalledAfter = settings.getRelayStalledAfter();
        this.webhook = !settings.getWebhookUrl().isBlank();
    }

    /** One check; true when it began an episode (and queued its notification). */
    public boolean check() {
        if (!webhook) {
            return false; // relay.stalled goes to the installation-wide webhook only: with none, nothing to tell
        }
        return Boolean.TRUE.equals(transactions.execute(status -> {
            jdbc.update("INSERT INTO relay_stall (one) VALUES (true) ON CONFLICT DO NOTHING");
            Timestamp since = jdbc.queryForObject("SELECT stalled_since FROM relay_stall FOR UPDATE", Timestamp.class);
            // an episode ends only once the backlog is well below the limit (half of it), so a relay that hovers
            // around the limit is one episode, not a notification at every crossing
            Stall stall = jdbc.queryForObject("SELECT min(created_at), count(*),"
                    + " coalesce(min(created_at) < now() - make_interval(secs => ?), false),"
                    + " coalesce(min(created_at) >= now() - make_interval(secs => ?), true)"
                    + " FROM outbox",
                    (rs, n) -> new Stall(rs.getTimestamp(1), rs.getLong(2), rs.getBoolean(3), rs.getBoolean(4)),
                    stalledAfter.toMillis() / 1000.0, stalledAfter.toMillis() / 2000.0);
            if (stall.stalled() && since == null) {
                jdbc.update("UPDATE relay_stall SET stalled_since = now()");
                notifications.relayStalled(stall.oldest().toInstant(), stall.unpublished());
                LOG.warn("the Kafka relay is stalled: {} unpublished event(s), the oldest from {}", stall.unpublished(),
                        stall.oldest().toInstant());
                return true;
            }
            if (stall.caughtUp() && since != null) {
                jdbc.update("UPDATE relay_stall SET stalled_since = NULL");
                LOG.info("the Kafka relay caught up again (stalled since {})", since.toInstant());
            }
            return false;
        }));
    }

    private record Stall(Timestamp oldest, long unpublished, boolean stalled, boolean caughtUp) {
    }
}
