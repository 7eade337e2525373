package dev.ingestor.outbox;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.SupplierProperties;
import dev.ingestor.logging.SafeText;
import dev.ingestor.metrics.IngestorMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Sends the notifications that are due (routes/notifications.camel.yaml), each a signed JSON POST. A 2xx answer
 * delivers it; anything else, or no answer within the timeouts, schedules the next attempt with a doubling wait,
 * and after the last attempt the notification is given up (ERROR line, metric).
 * <p>
 * The rows of a round are locked ({@code FOR UPDATE SKIP LOCKED}) from before the POST until its outcome is
 * written: another instance skips them, so no two instances send the same row at once, and a crash in between
 * leaves the row due again (at-least-once; the receiver drops a resend by its event id). Holding the lock, and
 * with it a database connection, across the POST is bounded by the batch size and the timeouts; a lease column
 * would free the connection but add a second write per attempt and a lease to tune.
 */
@Component("notificationDelivery")
public class NotificationDelivery {

    private static final Logger LOG = LoggerFactory.getLogger(NotificationDelivery.class);
    private static final int MAX_ERROR = 300;

    private record Due(long id, UUID eventId, String type, String destination, String url, String payload, int attempts) {
    }

    private final JdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final IngestorProperties properties;
    private final IngestorMetrics metrics;
    private final HttpClient client;

    public NotificationDelivery(JdbcTemplate jdbc, PlatformTransactionManager transactionManager,
                                IngestorProperties properties, IngestorMetrics metrics) {
        this.jdbc = jdbc;
        this.transactions = new TransactionTemplate(transactionManager);
        this.properties = properties;
        this.metrics = metrics;
        this.client = HttpClient.newBuilder().connectTimeout(properties.getNotifications().getConnectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /** Sends one round of due notifications; returns how many were taken. */
    public int deliverDue() {
        String[] destinations = destinations();
        if (destinations.length == 0) {
            return 0;
        }
        Integer taken = transactions.execute(status -> {
            List<Due> due = jdbc.query("SELECT id, event_id, type, destination, url, payload, attempts FROM notification"
                            + " WHERE delivered_at IS NULL AND gave_up_at IS NULL AND next_attempt_at <= now()"
                            + " AND destination = ANY (?) ORDER BY next_attempt_at, id LIMIT ? FOR UPDATE SKIP LOCKED",
                    (rs, n) -> new Due(rs.getLong(1), rs.getObject(2, UUID.class), rs.getString(3), rs.getString(4),
                            rs.getString(5), rs.getString(6), rs.getInt(7)),
                    destinations, Math.max(1, properties.getNotifications().getBatchSize()));
            due.forEach(this::attempt);
            return due.size();
        });
        return taken == null ? 0 : taken;
    }

    private void attempt(Due due) {
        String error = send(due);
        int attempts = due.attempts() + 1;
        if (error == null) {
            jdbc.update("UPDATE notification SET attempts = ?, delivered_at = now(), last_error = NULL WHERE id = ?",
                    attempts, due.id());
            metrics.notification(due.type(), "delivered");
        } else if (attempts >= properties.getNotifications().getMaxAttempts()) {
            jdbc.update("UPDATE notification SET attempts = ?, gave_up_at = now(), last_error = ? WHERE id = ?",
                    attempts, error, due.id());
            metrics.notification(due.type(), "gave_up");
            LOG.error("notification given up after {} attempts: event={} type={} destination={} last error: {}",
                    attempts, due.eventId(), due.type(), SafeText.of(due.destination()), SafeText.of(error));
        } else {
            jdbc.update("UPDATE notification SET attempts = ?, next_attempt_at = now() + make_interval(secs => ?),"
                    + " last_error = ? WHERE id = ?", attempts, backoff(attempts).toMillis() / 1000.0, error, due.id());
            metrics.notification(due.type(), "retried");
        }
    }

    /**
     * Deletes delivered and given-up notifications older than {@code keep-settled}, at most
     * {@code ingestor.retention.batch-size} rows per statement so no statement holds locks for long; returns how
     * many. Rows still due are never deleted.
     */
    public int forgetSettled() {
        double seconds = properties.getNotifications().getKeepSettled().toMillis() / 1000.0;
        int batch = Math.max(1, properties.getRetention().getBatchSize());
        int deleted = 0;
        int round;
        do {
            round = jdbc.update("DELETE FROM notification WHERE id IN (SELECT id FROM notification"
                    + " WHERE coalesce(delivered_at, gave_up_at) < now() - make_interval(secs => ?) LIMIT ?)", seconds, batch);
            deleted += round;
        } while (round == batch);
        return deleted;
    }

    /** Null when the webhook answered 2xx, else what went wrong (short; never the URL or the secret). */
    private String send(Due due) {
        byte[] body = due.payload().getBytes(StandardCharsets.UTF_8);
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(due.url()))
                    .timeout(properties.getNotifications().getReadTimeout())
                    .header("Content-Type", "application/json")
                    .header("X-Ingestor-Event-Id", due.eventId().toString())
                    .header("X-Ingestor-Event-Type", due.type())
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body));
            String secret = secret(due.destination());
            if (!secret.isEmpty()) {
                request.header(WebhookSignature.HEADER,
                        WebhookSignature.header(secret, System.currentTimeMillis() / 1000, body));
            }
            int status = client.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
            return status >= 200 && status < 300 ? null : "HTTP " + status;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } catch (Exception e) {
            String text = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
            return text.length() <= MAX_ERROR ? text : text.substring(0, MAX_ERROR);
        }
    }

    /**
     * The destinations this instance has a webhook for. It sends only their rows: a row of a webhook it does not
     * know (configuration that differs between instances for a while, a webhook removed) is never sent unsigned
     * or signed with the wrong secret; an instance that knows it will.
     */
    private String[] destinations() {
        List<String> known = new java.util.ArrayList<>();
        if (!properties.getNotifications().getWebhookUrl().isBlank()) {
            known.add(NotificationWriter.INSTALLATION);
        }
        properties.getSuppliers().forEach((code, supplier) -> {
            if (!supplier.getNotifications().getWebhookUrl().isBlank()) {
                known.add(code);
            }
        });
        return known.toArray(String[]::new);
    }

    /** The secret of the destination's webhook as configured now (secrets are never stored); empty: unsigned. */
    private String secret(String destination) {
        String secret;
        if (NotificationWriter.INSTALLATION.equals(destination)) {
            secret = properties.getNotifications().getSecret();
        } else {
            SupplierProperties supplier = properties.getSuppliers().get(destination);
            secret = supplier == null ? null : supplier.getNotifications().getSecret();
        }
        return secret == null ? "" : secret;
    }

    /** The wait after attempt {@code attempts} (1 = the first): delay doubled per attempt, up to maximum-delay. */
    Duration backoff(int attempts) {
        Duration delay = properties.getNotifications().getDelay();
        Duration maximum = properties.getNotifications().getMaximumDelay();
        Duration wait = delay;
        for (int i = 1; i < attempts && wait.compareTo(maximum) < 0; i++) {
            wait = wait.multipliedBy(2);
        }
        return wait.compareTo(maximum) > 0 ? maximum : wait;
    }
}
