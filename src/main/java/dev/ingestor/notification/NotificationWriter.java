package dev.ingestor.notification;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.SupplierProperties;
import dev.ingestor.outbox.DeadLetterWriter;
import dev.ingestor.outbox.FailedJobError;
import dev.ingestor.outbox.OutboxWriter;
import org.springframework.context.event.EventListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectMapper;

/**
 * Queues a webhook notification (table notification) in the caller's transaction, so it exists exactly when the
 * fact it reports was committed. One event goes to the installation-wide webhook and, for a supplier with a
 * webhook of its own, to that one too: both rows carry the same event id. No webhook for an event: nothing is
 * written. Intake notices of one kind coalesce ({@link #write}), so a client looping on a refused file does not
 * page operators once per attempt. {@link NotificationDelivery} sends the rows.
 */
@Component
public class NotificationWriter {

    /** The destination of the installation-wide webhook; any other destination is a supplier code. */
    public static final String INSTALLATION = "*";

    public static final String JOB_FAILED = "job.failed";
    public static final String DEAD_LETTER_CREATED = "dead_letter.created";
    public static final String INTAKE_FAILED = "intake.failed";
    public static final String INTAKE_REJECTED = "intake.rejected";
    public static final String RELAY_STALLED = "relay.stalled";
    /** Every type of notification. */
    public static final List<String> TYPES = List.of(JOB_FAILED, DEAD_LETTER_CREATED, INTAKE_FAILED, INTAKE_REJECTED,
            RELAY_STALLED);

    private final JdbcTemplate jdbc;
    private final ObjectMapper json;
    private final IngestorProperties properties;
    private final NotificationSettings notifications;

    /** What a supplier's own webhook is not told: internal failure text (class names, database and Kafka errors). */
    private static final Set<String> INTERNAL = Set.of("exception", "message");

    public NotificationWriter(JdbcTemplate jdbc, ObjectMapper json, IngestorProperties properties,
            NotificationSettings notifications) {
        this.jdbc = jdbc;
        this.json = json;
        this.properties = properties;
        this.notifications = notifications;
        checkUrl("ingestor.notifications.webhook-url", notifications.getWebhookUrl());
        properties.getSuppliers().forEach((code, supplier) -> checkUrl("ingestor.suppliers." + code
                + ".notifications.webhook-url", supplier.getNotifications().getWebhookUrl()));
    }

    /**
     * A webhook URL that cannot be sent to stops the start, naming the property, instead of failing every
     * notification later. The URL itself is not repeated: some services put their secret in it.
     */
    static void checkUrl(String property, String url) {
        if (url == null || url.isBlank()) {
            return;
        }
        URI uri;
        try {
            uri = new URI(url.strip());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(property + " is not a valid URL (" + e.getReason() + ")");
        }
        if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme())) {
            throw new IllegalStateException(property + " must be an http or https URL");
        }
        if (uri.getHost() == null) {
            throw new IllegalStateException(property + " has no host");
        }
        if (uri.getPort() == 0 || uri.getPort() > 65_535) {
            throw new IllegalStateException(property + " has port " + uri.getPort() + "; a port is 1 to 65535");
        }
        if (uri.getRawUserInfo() != null) {
            // Java's HTTP client sends no credentials from the URL: every notification would be refused
            throw new IllegalStateException(property + " holds credentials before its host (user:password@), which"
                    + " are never sent; a service that takes a secret takes it in the URL's path or query, or checks the"
                    + " signature the webhook's secret makes");
        }
    }

    /**
     * A job came to rest FAILED with {@code error} ({@link FailedJobError}'s form): the installation-wide webhook
     * is told it whole, a supplier's own webhook only what its key is shown of it.
     */
    public void jobFailed(UUID jobId, String supplier, String key, String error) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("job_id", jobId.toString());
        data.put("key", key);
        data.put("error", error);
        write(JOB_FAILED, supplier, data, shown -> shown.put("error", FailedJobError.shownToSupplier(error)), null);
    }

    /** A dead letter was recorded, in the transaction that recorded it. */
    @EventListener
    public void deadLetter(DeadLetterWriter.Recorded recorded) {
        long deadLetterId = recorded.id();
        DeadLetterWriter.Failure failure = recorded.failure();
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("dead_letter_id", deadLetterId);
        data.put("job_id", failure.jobId() == null ? null : failure.jobId().toString());
        data.put("key", failure.key());
        data.put("stage", failure.stage());
        data.put("exception", failure.exception());
        data.put("message", failure.message());
        data.put("attempts", failure.attempts());
        write(DEAD_LETTER_CREATED, failure.supplier(), data, shown -> shown.keySet().removeAll(INTERNAL), null);
    }

    /**
     * An arrival that did not become a job; {@code outcome} rejected (final) or failed (transient). Notices of one
     * kind (type, supplier, source, reason) coalesce: see {@link #write}. A rejection's reason is about the file and
     * the supplier is told it; a failure's is ours (a database or disk error, an exception's class), so a supplier's
     * own webhook is told only that it failed on our side, as of a FAILED job.
     */
    public void intakeFailure(long intakeFailureId, String supplier, String source, String fileName, String outcome,
            String reason) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("intake_failure_id", intakeFailureId);
        data.put("source", source);
        data.put("file_name", fileName);
        data.put("outcome", outcome);
        data.put("reason", reason);
        String type = "rejected".equals(outcome) ? INTAKE_REJECTED : INTAKE_FAILED;
        Consumer<Map<String, Object>> forSupplier = INTAKE_FAILED.equals(type)
                ? shown -> shown.put("reason", FailedJobError.UNNAMED)
                : shown -> {};
        write(type, supplier, data, forSupplier, kind(type, supplier, source, reason));
    }

    /** The oldest unpublished Kafka event is older than the configured limit. */
    public void relayStalled(Instant oldestUnpublished, long unpublished) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("oldest_unpublished_at", oldestUnpublished.toString());
        data.put("unpublished", unpublished);
        write(RELAY_STALLED, null, data, shown -> {}, null);
    }

    /**
     * Queues the event for every webhook that receives it; a supplier's own webhook gets {@code data} as
     * {@code forSupplier} leaves it. {@code kind} null: one notice of this one fact. Otherwise the digest of what
     * makes notices alike: the fact is counted into the open notice of its kind for that webhook when there is one
     * (it is sent with the count and the first and last time, {@link NotificationDelivery}); else it opens one, due
     * at once for the first of its kind, or a coalesce-window after the previous one was due. The unique index
     * on open notices makes two instances counting at once meet in one row.
     */
    private void write(String type, String supplier, Map<String, Object> data,
            Consumer<Map<String, Object>> forSupplier,
            String kind) {
        List<String> destinations = destinations(supplier);
        if (destinations.isEmpty()) {
            return;
        }
        UUID eventId = OutboxWriter.newEventId();
        String occurredAt = Instant.now().toString();
        double window = notifications.getCoalesceWindow().toMillis() / 1000.0;
        for (String destination : destinations) {
            Map<String, Object> shown = new LinkedHashMap<>(data);
            if (!INSTALLATION.equals(destination)) {
                forSupplier.accept(shown);
            }
            if (kind != null && window <= 0) {
                // not coalesced (a window of 0): a notice of one fact, carrying what a coalesced one does
                shown.put("count", 1);
                shown.put("first_occurred_at", occurredAt);
                shown.put("last_occurred_at", occurredAt);
            }
            Map<String, Object> event = new LinkedHashMap<>();
            event.put("event_id", eventId.toString());
            event.put("type", type);
            event.put("occurred_at", occurredAt);
            event.put("supplier", supplier);
            event.put("data", shown);
            if (kind == null || window <= 0) {
                jdbc.update(
                        "INSERT INTO notification (event_id, type, supplier, destination, payload) VALUES (?, ?, ?, ?, ?)",
                        eventId, type, supplier, destination, text(event));
            } else {
                jdbc.update("INSERT INTO notification (event_id, type, supplier, destination, payload, coalesce_key,"
                        + " coalescing, first_at, last_at, due_from, next_attempt_at)"
                        + " SELECT ?, ?, ?, ?, ?, ?, true, now(), now(), d.due, d.due FROM (SELECT greatest(now(),"
                        + "   (SELECT max(due_from) FROM notification WHERE coalesce_key = ? AND destination = ?)"
                        + "   + make_interval(secs => ?)) AS due) d"
                        + " ON CONFLICT (coalesce_key, destination) WHERE coalescing"
                        + " DO UPDATE SET occurrences = notification.occurrences + 1, last_at = EXCLUDED.last_at",
                        eventId, type, supplier, destination, text(event), kind, kind, destination, window);
            }
        }
    }

    /** What makes two notices one kind, as a digest (a reason may be long): type, supplier, source and reason. */
    private static String kind(String... parts) {
        try {
            MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
            for (String part : parts) {
                sha256.update(String.valueOf(part).getBytes(StandardCharsets.UTF_8));
                sha256.update((byte) 0);
            }
            return HexFormat.of().formatHex(sha256.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /**
     * The destination of every webhook that receives an event of {@code supplier} (null: none's own): '*' for the
     * installation-wide one, the supplier's code for its own. Only the destination is stored; the URL and secret
     * are looked up when the notification is sent.
     */
    private List<String> destinations(String supplier) {
        List<String> destinations = new ArrayList<>();
        if (configured(notifications.getWebhookUrl())) {
            destinations.add(INSTALLATION);
        }
        SupplierProperties own = supplier == null ? null : properties.getSuppliers().get(supplier);
        if (own != null && configured(own.getNotifications().getWebhookUrl())) {
            destinations.add(supplier);
        }
        return destinations;
    }

    private static boolean configured(String url) {
        return url != null && !url.isBlank();
    }

    private String text(Map<String, Object> event) {
        try {
            return json.writeValueAsString(event);
        } catch (JacksonException e) {
            throw new IllegalStateException(e);
        }
    }
}
