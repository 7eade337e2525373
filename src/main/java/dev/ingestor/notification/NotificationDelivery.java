package dev.ingestor.notification;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.RetentionSettings;
import dev.ingestor.config.SupplierProperties;
import dev.ingestor.logging.SafeText;
import dev.ingestor.metrics.IngestorMetrics;
import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Sends the notifications that are due (routes/notifications.camel.yaml), each a JSON POST, signed when its webhook
 * has a secret (one without is warned of at start). A 2xx answer
 * delivers it; anything else, or no answer within the timeouts, schedules the next attempt with a doubling wait,
 * and after the last attempt the notification is given up (ERROR line, metric).
 * <p>
 * A round claims its rows in one short statement that moves their next attempt past the time a POST may take
 * (a lease): another instance does not take them meanwhile, and a crash leaves them due again once the lease ends
 * (at-least-once; the receiver drops a resend by its event id). No transaction and no database connection is held
 * while the webhooks answer. Each destination is a lane of its own: a round takes rows only of destinations with
 * nothing under way on this instance, sends them without waiting, and each POST is settled as soon as it is
 * answered or reaches its hard deadline (connect plus read timeout, covering a receiver that trickles its answer).
 * A slow receiver so holds back its own notifications only, never another destination's.
 * <p>
 * The URL and the secret of a destination are taken from the configuration when sending, never stored: a row of
 * a destination this instance has no webhook for waits for an instance that has, and is given up once it is older
 * than {@code keep-settled} (the webhook was removed).
 */
@Component("notificationDelivery")
class NotificationDelivery {

    private static final Logger LOG = LoggerFactory.getLogger(NotificationDelivery.class);

    static final String DELIVERED = "delivered";
    static final String RETRIED = "retried";
    static final String GAVE_UP = "gave_up";
    /** The outcomes of an attempt, as ingestor_notifications_total counts them. */
    static final List<String> OUTCOMES = List.of(DELIVERED, RETRIED, GAVE_UP);

    /** A claimed row; {@code coalesced} rows carry their count and first and last time into the body sent. */
    private record Due(long id, UUID eventId, String type, String destination, String payload, int attempts,
            boolean coalesced, int occurrences, Instant firstAt, Instant lastAt, OffsetDateTime lease) {
    }

    private final JdbcTemplate jdbc;
    private final IngestorProperties properties;
    private final NotificationSettings notifications;
    private final RetentionSettings retention;
    private final IngestorMetrics metrics;
    private final ObjectMapper json;
    private final HttpClient client;
    /** Destinations with POSTs under way on this instance: their lane is busy until every one is settled. */
    private final Set<String> busy = ConcurrentHashMap.newKeySet();
    /** Where answered POSTs are settled (a database update each), off the HTTP client's own threads. */
    private final ExecutorService settling = Executors.newFixedThreadPool(2, runnable -> {
        Thread thread = new Thread(runnable, "notification-settle");
        thread.setDaemon(true);
        return thread;
    });

    public NotificationDelivery(JdbcTemplate jdbc, IngestorProperties properties, NotificationSettings notifications,
            RetentionSettings retention, IngestorMetrics metrics, ObjectMapper json) {
        this.jdbc = jdbc;
        this.properties = properties;
        this.notifications = notifications;
        this.retention = retention;
        this.metrics = metrics;
        this.json = json;
        this.client = HttpClient.newBuilder().connectTimeout(notifications.getConnectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER).build();
        // counted from 0, so the alert on notifications given up sees the first one after a start
        NotificationWriter.TYPES
                .forEach(type -> OUTCOMES.forEach(outcome -> metrics.notificationsFromZero(type, outcome)));
        warnOfUnsignedWebhooks();
    }

    /**
     * One WARN per webhook with a URL and no secret: its notifications go without X-Ingestor-Signature. Legitimate
     * (some services take their secret in the URL), but a receiver that checks the header would refuse every one, and
     * nothing else says why. Names the property that signs them, never the URL, which may hold a secret.
     */
    private void warnOfUnsignedWebhooks() {
        for (String destination : destinations()) {
            if (!webhook(destination).secret().isEmpty()) {
                continue;
            }
            if (NotificationWriter.INSTALLATION.equals(destination)) {
                LOG.warn("the installation-wide webhook is sent its notifications unsigned, without {}: set"
                        + " ingestor.notifications.secret to sign them", WebhookSignature.HEADER);
            } else {
                LOG.warn("the webhook of supplier={} is sent its notifications unsigned, without {}: set"
                        + " ingestor.suppliers.{}.notifications.secret to sign them", destination,
                        WebhookSignature.HEADER, destination);
            }
        }
    }

    /** Starts one round: sends the due notifications of every free lane; returns how many were taken. */
    public int deliverDue() {
        String[] destinations = Arrays.stream(destinations()).filter(d -> !busy.contains(d)).toArray(String[]::new);
        if (destinations.length == 0) {
            return 0;
        }
        Duration deadline = deadline();
        // the lease: twice the longest a POST can take, so a POST settled normally always writes its outcome first;
        // taking a row ends its coalescing, so what is sent is never counted into again
        List<Due> due = jdbc.query("UPDATE notification SET next_attempt_at = now() + make_interval(secs => ?),"
                + " coalescing = false"
                + " WHERE id = ANY (ARRAY(SELECT id FROM notification WHERE delivered_at IS NULL AND gave_up_at IS NULL"
                + " AND next_attempt_at <= now() AND destination = ANY (?) ORDER BY next_attempt_at, id LIMIT ?"
                + " FOR UPDATE SKIP LOCKED))"
                + " RETURNING id, event_id, type, destination, payload, attempts, coalesce_key IS NOT NULL,"
                + " occurrences, first_at, last_at, next_attempt_at",
                (rs, n) -> new Due(rs.getLong(1), rs.getObject(2, UUID.class), rs.getString(3), rs.getString(4),
                        rs.getString(5), rs.getInt(6), rs.getBoolean(7), rs.getInt(8), instant(rs, 9), instant(rs, 10),
                        rs.getObject(11, OffsetDateTime.class)),
                deadline.multipliedBy(2).toMillis() / 1000.0, destinations,
                Math.max(1, notifications.getBatchSize()));
        Map<String, List<Due>> lanes = new LinkedHashMap<>();
        due.forEach(row -> lanes.computeIfAbsent(row.destination(), d -> new ArrayList<>()).add(row));
        lanes.forEach((destination, rows) -> {
            busy.add(destination);
            CompletableFuture<?>[] settled = rows.stream().map(row -> deliver(row, deadline))
                    .toArray(CompletableFuture[]::new);
            CompletableFuture.allOf(settled).whenComplete((done, failure) -> busy.remove(destination));
        });
        return due.size();
    }

    /** Sends {@code due} and settles it once answered, or at the deadline; the future ends when it is settled. */
    private CompletableFuture<Void> deliver(Due due, Duration deadline) {
        CompletableFuture<HttpResponse<Void>> answer;
        AtomicInteger status = new AtomicInteger();
        try {
            answer = send(due, status);
        } catch (RuntimeException e) {
            answer = CompletableFuture.failedFuture(e); // a request that cannot even be made is a failed attempt
        } catch (Error e) {
            // a stack overflow, memory run out: a failed attempt too, so its lane is freed once it is settled (thrown
            // on, it left the lane busy for good, and this instance sent that webhook nothing more)
            LOG.error("notification event={} could not be sent", due.eventId(), e);
            answer = CompletableFuture.failedFuture(e);
        }
        // cancelling the exchange lets go of a receiver that answers late or trickles its answer
        CompletableFuture<HttpResponse<Void>> sent = answer;
        CompletableFuture.delayedExecutor(deadline.toNanos(), TimeUnit.NANOSECONDS).execute(() -> sent.cancel(true));
        try {
            return sent.handleAsync((response, failure) -> outcome(response, failure, status.get()), settling)
                    .thenAccept(error -> {
                        try {
                            settle(due, error);
                        } catch (RuntimeException e) {
                            // the lease ends and the row is due again: at least once
                            LOG.warn(
                                    "could not settle notification event={} ({}); it is sent again when its lease ends",
                                    due.eventId(), SafeText.of(e.toString()));
                        }
                    });
        } catch (RejectedExecutionException e) {
            return CompletableFuture.completedFuture(null); // shutting down: the lease ends and the row is due again
        }
    }

    @PreDestroy
    void stop() {
        settling.shutdown();
    }

    private static Instant instant(java.sql.ResultSet rs, int column) throws java.sql.SQLException {
        java.sql.Timestamp time = rs.getTimestamp(column);
        return time == null ? null : time.toInstant();
    }

    /**
     * Writes the attempt's outcome, only while the row is still held by this attempt's lease: a settle that comes
     * after the lease ended (its connection waited, the JVM paused) and after another attempt took the row writes
     * nothing, so it neither makes the row due under that attempt's POST nor gives up a row another delivered.
     */
    private void settle(Due due, String error) {
        int attempts = due.attempts() + 1;
        String held = " WHERE id = ? AND next_attempt_at = ? AND delivered_at IS NULL AND gave_up_at IS NULL";
        String outcome;
        int settled;
        if (error == null) {
            outcome = DELIVERED;
            settled = jdbc.update(
                    "UPDATE notification SET attempts = ?, delivered_at = now(), last_error = NULL" + held,
                    attempts, due.id(), due.lease());
        } else if (attempts >= notifications.getMaxAttempts()) {
            outcome = GAVE_UP;
            settled = jdbc.update("UPDATE notification SET attempts = ?, gave_up_at = now(), last_error = ?" + held,
                    attempts, error, due.id(), due.lease());
        } else {
            outcome = RETRIED;
            settled = jdbc.update("UPDATE notification SET attempts = ?, next_attempt_at = now() + make_interval(secs"
                    + " => ?), last_error = ?" + held, attempts, backoff(attempts).toMillis() / 1000.0, error, due.id(),
                    due.lease());
        }
        if (settled == 0) {
            LOG.warn("notification event={} was taken by another attempt after this one's lease ended; this attempt's"
                    + " outcome ({}) is not recorded", due.eventId(), error == null ? "delivered" : SafeText.of(error));
            return;
        }
        metrics.notification(due.type(), outcome);
        if (error != null && attempts >= notifications.getMaxAttempts()) {
            LOG.error("notification given up after {} attempts: event={} type={} destination={} last error: {}",
                    attempts, due.eventId(), due.type(), SafeText.of(due.destination()), SafeText.of(error));
        }
    }

    /**
     * Deletes delivered and given-up notifications older than {@code keep-settled}, at most
     * {@code ingestor.retention.batch-size} rows per statement so no statement holds locks for long; returns how
     * many. Rows still due are never deleted.
     */
    public int forgetSettled() {
        double seconds = notifications.getKeepSettled().toMillis() / 1000.0;
        int batch = Math.max(1, retention.getBatchSize());
        // rows of a webhook no instance has any more are never sent: given up once as old as a settled row may get
        // (and no longer open for coalescing: a webhook configured again starts a notice of its own)
        // counted as given up by type, as the alert on notifications given up watches
        List<Map<String, Object>> orphans = jdbc.queryForList(
                "WITH gone AS (UPDATE notification SET gave_up_at = now(), coalescing = false, last_error = 'no webhook"
                        + " is configured for this destination' WHERE delivered_at IS NULL AND gave_up_at IS NULL"
                        + " AND NOT (destination = ANY (?)) AND created_at < now() - make_interval(secs => ?)"
                        + " RETURNING type) SELECT type, count(*) AS n FROM gone GROUP BY type",
                destinations(), seconds);
        long givenUp = 0;
        for (Map<String, Object> byType : orphans) {
            long n = ((Number) byType.get("n")).longValue();
            metrics.notifications((String) byType.get("type"), GAVE_UP, n);
            givenUp += n;
        }
        if (givenUp > 0) {
            LOG.warn("{} notification(s) given up: no webhook is configured for their destination any more", givenUp);
        }
        int deleted = 0;
        int round;
        do {
            // a batch of ids through the primary key: IN (SELECT ... LIMIT) may be joined to a scan of the table
            round = jdbc.update("DELETE FROM notification WHERE id = ANY (ARRAY(SELECT id FROM notification"
                    + " WHERE coalesce(delivered_at, gave_up_at) < now() - make_interval(secs => ?) LIMIT ?))",
                    seconds, batch);
            deleted += round;
        } while (round == batch);
        return deleted;
    }

    /** The POST of {@code due}, under way; a webhook this instance no longer has fails at once. */
    private CompletableFuture<HttpResponse<Void>> send(Due due, AtomicInteger status) {
        Webhook webhook = webhook(due.destination());
        if (webhook.url().isEmpty()) {
            return CompletableFuture.failedFuture(new NoWebhook());
        }
        byte[] body = body(due);
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(webhook.url()))
                .timeout(notifications.getReadTimeout())
                .header("Content-Type", "application/json")
                .header("X-Ingestor-Event-Id", due.eventId().toString())
                .header("X-Ingestor-Event-Type", due.type())
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (!webhook.secret().isEmpty()) {
            request.header(WebhookSignature.HEADER,
                    WebhookSignature.header(webhook.secret(), System.currentTimeMillis() / 1000, body));
        }
        // the status is known once the head of the answer is: a receiver that answered 2xx and then trickles its body
        // past the deadline has taken the notification
        return client.sendAsync(request.build(), info -> {
            status.set(info.statusCode());
            return HttpResponse.BodySubscribers.discarding();
        });
    }

    /**
     * The exact body of {@code due}: its payload, and for a coalesced notice, in its data, how many facts it counts
     * and the first and last time. A claimed row is counted into no more, so every attempt sends the same bytes.
     */
    private byte[] body(Due due) {
        if (!due.coalesced()) {
            return due.payload().getBytes(StandardCharsets.UTF_8);
        }
        try {
            ObjectNode event = (ObjectNode) json.readTree(due.payload());
            ObjectNode data = event.get("data") instanceof ObjectNode shown ? shown : event.putObject("data");
            data.put("count", due.occurrences());
            data.put("first_occurred_at", String.valueOf(due.firstAt()));
            data.put("last_occurred_at", String.valueOf(due.lastAt()));
            return json.writeValueAsBytes(event);
        } catch (JacksonException e) {
            throw new IllegalStateException("notification " + due.id() + " holds no JSON object", e);
        }
    }

    /**
     * Null when the webhook answered 2xx (its status line, whatever became of the body after it), else what went
     * wrong: a status or the name of the failure, never its message (which may quote the URL, itself a secret for
     * some services).
     */
    private static String outcome(HttpResponse<Void> response, Throwable failure, int headStatus) {
        if (failure != null && headStatus >= 200 && headStatus < 300) {
            return null;
        }
        if (failure == null) {
            int status = response.statusCode();
            return status >= 200 && status < 300 ? null : "HTTP " + status;
        }
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause()
                : failure;
        if (cause instanceof CancellationException) {
            return "no complete answer within the timeouts";
        }
        return cause instanceof NoWebhook ? "no webhook configured" : cause.getClass().getSimpleName();
    }

    /** This instance has no webhook for the row's destination (any more). */
    private static final class NoWebhook extends RuntimeException {
        NoWebhook() {
            super("no webhook configured", null, false, false);
        }
    }

    /** Connect plus read timeout: the most one POST may take, its answer's body included. */
    private Duration deadline() {
        return notifications.getConnectTimeout().plus(notifications.getReadTimeout());
    }

    /**
     * The destinations this instance has a webhook for. It sends only their rows: a row of a webhook it does not
     * know (configuration that differs between instances for a while, a webhook removed) is never sent unsigned
     * or signed with the wrong secret; an instance that knows it will.
     */
    private String[] destinations() {
        List<String> known = new java.util.ArrayList<>();
        if (!notifications.getWebhookUrl().isBlank()) {
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
            return new Webhook(notifications.getWebhookUrl(), notifications.getSecret());
        }
        SupplierProperties supplier = properties.getSuppliers().get(destination);
        return supplier == null
                ? Webhook.NONE
                : new Webhook(supplier.getNotifications().getWebhookUrl(), supplier.getNotifications().getSecret());
    }

    /** The wait after attempt {@code attempts} (1 = the first): delay doubled per attempt, up to maximum-delay. */
    Duration backoff(int attempts) {
        Duration delay = notifications.getDelay();
        Duration maximum = notifications.getMaximumDelay();
        Duration wait = delay;
        for (int i = 1; i < attempts && wait.compareTo(maximum) < 0; i++) {
            wait = wait.multipliedBy(2);
        }
        return wait.compareTo(maximum) > 0 ? maximum : wait;
    }
}
