package dev.ingestor.outbox;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.SupplierProperties;
import dev.ingestor.logging.SafeText;
import dev.ingestor.metrics.IngestorMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Sends the notifications that are due (routes/notifications.camel.yaml), each a signed JSON POST. A 2xx answer
 * delivers it; anything else, or no answer within the timeouts, schedules the next attempt with a doubling wait,
 * and after the last attempt the notification is given up (ERROR line, metric).
 * <p>
 * A round claims its rows in one short statement that moves their next attempt past the time a round may take
 * (a lease): another instance does not take them meanwhile, and a crash leaves them due again once the lease ends
 * (at-least-once; the receiver drops a resend by its event id). No transaction and no database connection is held
 * while the webhooks answer, and the POSTs of a round go out together, each with a hard deadline (connect plus read
 * timeout, covering a receiver that trickles its answer), so one slow receiver costs a round at most one deadline
 * and holds back nobody else's notifications for longer.
 * <p>
 * The URL and the secret of a destination are taken from the configuration when sending, never stored: a row of
 * a destination this instance has no webhook for waits for an instance that has, and is given up once it is older
 * than {@code keep-settled} (the webhook was removed).
 */
@Component("notificationDelivery")
public class NotificationDelivery {

    private static final Logger LOG = LoggerFactory.getLogger(NotificationDelivery.class);

    private record Due(long id, UUID eventId, String type, String destination, String payload, int attempts) {
    }

    private final JdbcTemplate jdbc;
    private final IngestorProperties properties;
    private final IngestorMetrics metrics;
    private final HttpClient client;

    public NotificationDelivery(JdbcTemplate jdbc, IngestorProperties properties, IngestorMetrics metrics) {
        this.jdbc = jdbc;
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
        Duration deadline = deadline();
        // the lease: twice the longest a round can take, so a round that ends normally always writes its outcome first
        List<Due> due = jdbc.query("UPDATE notification SET next_attempt_at = now() + make_interval(secs => ?)"
                        + " WHERE id IN (SELECT id FROM notification WHERE delivered_at IS NULL AND gave_up_at IS NULL"
                        + " AND next_attempt_at <= now() AND destination = ANY (?) ORDER BY next_attempt_at, id LIMIT ?"
                        + " FOR UPDATE SKIP LOCKED)"
                        + " RETURNING id, event_id, type, destination, payload, attempts",
                (rs, n) -> new Due(rs.getLong(1), rs.getObject(2, UUID.class), rs.getString(3), rs.getString(4),
                        rs.getString(5), rs.getInt(6)),
                deadline.multipliedBy(2).toMillis() / 1000.0, destinations,
                Math.max(1, properties.getNotifications().getBatchSize()));
        List<CompletableFuture<HttpResponse<Void>>> sent = new ArrayList<>(due.size());
        for (Due notification : due) {
            sent.add(send(notification));
        }
        long until = System.nanoTime() + deadline.toNanos();
        for (int i = 0; i < due.size(); i++) {
            settle(due.get(i), outcome(sent.get(i), until));
        }
        return due.size();
    }

    private void settle(Due due, String error) {
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
        // rows of a webhook no instance has any more are never sent: given up once as old as a settled row may get
        int orphans = jdbc.update("UPDATE notification SET gave_up_at = now(), last_error = 'no webhook is configured"
                + " for this destination' WHERE delivered_at IS NULL AND gave_up_at IS NULL AND NOT (destination = ANY (?))"
                + " AND created_at < now() - make_interval(secs => ?)", destinations(), seconds);
        if (orphans > 0) {
            LOG.warn("{} notification(s) given up: no webhook is configured for their destination any more", orphans);
        }
        int deleted = 0;
        int round;
        do {
            round = jdbc.update("DELETE FROM notification WHERE id IN (SELECT id FROM notification"
                    + " WHERE coalesce(delivered_at, gave_up_at) < now() - make_interval(secs => ?) LIMIT ?)", seconds, batch);
            deleted += round;
        } while (round == batch);
        return deleted;
    }

    /** The POST of {@code due}, under way; a webhook this instance no longer has fails at once. */
    private CompletableFuture<HttpResponse<Void>> send(Due due) {
        Webhook webhook = webhook(due.destination());
        if (webhook.url().isEmpty()) {
            return CompletableFuture.failedFuture(new IllegalStateException("no webhook configured"));
        }
        byte[] body = due.payload().getBytes(StandardCharsets.UTF_8);
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(webhook.url()))
                .timeout(properties.getNotifications().getReadTimeout())
                .header("Content-Type", "application/json")
                .header("X-Ingestor-Event-Id", due.eventId().toString())
                .header("X-Ingestor-Event-Type", due.type())
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (!webhook.secret().isEmpty()) {
            request.header(WebhookSignature.HEADER, WebhookSignature.header(webhook.secret(), System.currentTimeMillis() / 1000, body));
        }
        return client.sendAsync(request.build(), HttpResponse.BodyHandlers.discarding());
    }

    /**
     * Null when the webhook answered 2xx by {@code until} (System.nanoTime), else what went wrong: a status or the
     * name of the failure, never its message (which may quote the URL, itself a secret for some services).
     */
    private static String outcome(CompletableFuture<HttpResponse<Void>> answer, long until) {
        try {
            int status = answer.get(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS).statusCode();
            return status >= 200 && status < 300 ? null : "HTTP " + status;
        } catch (TimeoutException e) {
            // cancelling the future aborts the exchange: a receiver that trickles its answer is let go here
            answer.cancel(true);
            return "no complete answer within the timeouts";
        } catch (InterruptedException e) {
            answer.cancel(true);
            Thread.currentThread().interrupt();
            return "interrupted";
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return cause instanceof IllegalStateException ? "no webhook configured" : cause.getClass().getSimpleName();
        }
    }

    /** Connect plus read timeout: the most one POST may take, its answer's body included. */
    private Duration deadline() {
        return properties.getNotifications().getConnectTimeout().plus(properties.getNotifications().getReadTimeout());
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

    /** A destination's webhook as configured now; empty strings: none (no URL), or unsigned (no secret). */
    private record Webhook(String url, String secret) {
        static final Webhook NONE = new Webhook("", "");

        Webhook(String url, String secret) {
            this.url = url == null ? "" : url.strip();
            this.secret = secret == null ? "" : secret;
        }
    }

    /** The webhook of {@code destination}: '*' the installation-wide one, else a supplier's own. */
    private Webhook webhook(String destination) {
        if (NotificationWriter.INSTALLATION.equals(destination)) {
            return new Webhook(properties.getNotifications().getWebhookUrl(), properties.getNotifications().getSecret());
        }
        SupplierProperties supplier = properties.getSuppliers().get(destination);
        return supplier == null ? Webhook.NONE
                : new Webhook(supplier.getNotifications().getWebhookUrl(), supplier.getNotifications().getSecret());
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
