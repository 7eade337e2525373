package dev.ingestor.outbox;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.config.InstanceId;
import dev.ingestor.config.KafkaSettings;
import dev.ingestor.config.RetentionSettings;
import dev.ingestor.logging.SafeText;
import dev.ingestor.metrics.IngestorMetrics;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The relay's side of the outbox (routes/outbox-relay.camel.yaml), in two short transactions per round with no
 * transaction (nor connection) held in between, while Kafka is waited on:
 * <ol>
 * <li>{@link #take}: lease one slice of the topic that has pending events and nobody holds (the least recently
 * served first), and read its next events;</li>
 * <li>{@link #settle}: move what Kafka acknowledged or refused for good out of the outbox (into the archive
 * {@code outbox_published} while {@code ingestor.retention.outbox-max-age} keeps any), and give the lease back.</li>
 * </ol>
 * One key's events always fall in one slice and one relay at a time holds a slice, so they leave in the order they
 * were written. The outbox holds only pending events: nothing rewrites an event's row.
 */
@Component
public class OutboxStore {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.outbox");

    /**
     * The least recently served free slice of the topic with pending events, leased to the caller. A slice another
     * relay is taking at this moment is skipped rather than waited for; a lease that ran out is free again.
     * <p>
     * The free slices are put in that order first (a few dozen rows) and asked whether they have events in it, so
     * the question stops at the first that has: while events flow that is the first one asked. Asked of every free
     * slice before the order (the outbox's index read once per slice, each time past the head of the slice's
     * events the relays deleted since the last vacuum) it took 20 ms a round under a 1,000,000-record file, more
     * PostgreSQL time than the records' own apply statements (docs/benchmarks.md).
     */
    static final String TAKE_SLICE = """
            UPDATE outbox_lease l
            SET owner = ?, expires_at = now() + make_interval(secs => ?), served_at = now()
            FROM (SELECT c.topic, c.slice, c.owner, c.expires_at
                  FROM (SELECT topic, slice, owner, expires_at, served_at FROM outbox_lease
                        WHERE topic = ? AND (expires_at IS NULL OR expires_at < now())
                        ORDER BY served_at NULLS FIRST, slice) c
                  WHERE EXISTS (SELECT 1 FROM outbox o WHERE o.topic = c.topic AND o.slice = c.slice)
                  LIMIT 1
                  FOR UPDATE SKIP LOCKED) free
            WHERE l.topic = free.topic AND l.slice = free.slice
            RETURNING l.slice, l.one_alone, free.owner AS previous_owner, free.expires_at AS previous_expiry
            """;

    private final JdbcTemplate jdbc;
    private final DeadLetterWriter deadLetters;
    private final ObjectMapper json;
    private final IngestorMetrics metrics;
    private final String deadLetterTopic;
    private final String instance;
    private final int limit;
    private final long bytes;
    private final double leaseSeconds;
    private final boolean archive;

    public OutboxStore(JdbcTemplate jdbc, DeadLetterWriter deadLetters, ObjectMapper json, IngestorMetrics metrics,
            KafkaSettings kafka, OutboxSettings settings, RetentionSettings retention, InstanceId instanceId) {
        this.jdbc = jdbc;
        this.deadLetters = deadLetters;
        this.json = json;
        this.metrics = metrics;
        // from 0, so that the dead-letter alert sees the relay's first after a start
        metrics.deadLettersFromZero(DeadLetterWriter.RELAY_STAGE);
        this.deadLetterTopic = kafka.getDeadLettersTopic();
        this.instance = instanceId.value();
        this.limit = settings.getBatchSize();
        this.bytes = settings.getBatchBytes().toBytes();
        this.leaseSeconds = settings.sliceLease().toMillis() / 1000.0;
        // an outbox-max-age of 0 keeps no published event: it is deleted, never written to the archive
        this.archive = retention.getOutboxMaxAge().toMillis() > 0;
    }

    /** Events written but not yet published, on every topic: the backlog an operator sees. */
    public long pending() {
        Long pending = jdbc.queryForObject("SELECT count(*) FROM outbox", Long.class);
        return pending == null ? 0 : pending;
    }

    /**
     * A relay round's first transaction: a slice of {@code topic} for the calling relay route and its next events;
     * null when no slice with pending events is free.
     */
    public RelayRound take(@ExchangeProperty(OutboxRelay.TOPIC) String topic, Exchange exchange) {
        return take(topic, instance + "/" + exchange.getFromRouteId());
    }

    RelayRound take(String topic, String owner) {
        // before the statement that starts the lease: the round's hand-over deadline never ends after the lease's
        long takenAt = System.nanoTime();
        List<Map<String, Object>> taken = jdbc.queryForList(TAKE_SLICE, owner, leaseSeconds, topic);
        if (taken.isEmpty() && ensureLeases(topic) > 0) {
            taken = jdbc.queryForList(TAKE_SLICE, owner, leaseSeconds, topic);
        }
        if (taken.isEmpty()) {
            return null;
        }
        Map<String, Object> lease = taken.get(0);
        int slice = ((Number) lease.get("slice")).intValue();
        Object previousOwner = lease.get("previous_owner");
        if (lease.get("previous_expiry") != null && !owner.equals(previousOwner)) {
            // a relay that took the slice and never gave it back: it died or lost the database mid-round; its
            // sends are over by now, and what it had not settled goes again, with the same event ids
            LOG.warn("outbox relay {} takes over slice {} of {} from {}, whose lease ran out", owner, slice, topic,
                    SafeText.of(String.valueOf(previousOwner)));
        }
        return new RelayRound(topic, slice, owner, Boolean.TRUE.equals(lease.get("one_alone")), takenAt,
                nextBatch(topic, slice));
    }

    /** The lease rows of a topic the relays meet for the first time; returns how many were made. */
    private int ensureLeases(String topic) {
        return jdbc.update("INSERT INTO outbox_lease (topic, slice)"
                + " SELECT ?, s FROM generate_series(0, outbox_slice_count() - 1) s ON CONFLICT DO NOTHING", topic);
    }

    /**
     * The next events of one slice of {@code topic}, oldest first: at most {@code batch-size} of them, and no
     * more payload bytes than {@code batch-bytes} after the first. Read without locking the rows: the slice's
     * lease already makes the caller the only relay of these events.
     */
    List<OutboxEvent> nextBatch(String topic, int slice) {
        return jdbc.query("SELECT id, event_id, event_key, payload FROM ("
                + " SELECT id, event_id, event_key, payload, size, sum(size) OVER (ORDER BY id) AS through"
                + " FROM (SELECT id, event_id, event_key, payload, octet_length(payload) AS size FROM outbox"
                + "   WHERE topic = ? AND slice = ? ORDER BY id LIMIT ?) oldest) e"
                + " WHERE through = size OR through <= ? ORDER BY id",
                (rs, row) -> new OutboxEvent(rs.getLong("id"), rs.getObject("event_id", UUID.class),
                        rs.getString("event_key"), rs.getString("payload")),
                topic, slice, limit, bytes);
    }

    /**
     * A relay round's second transaction: records Kafka's answers and gives the slice back, remembering in it
     * whether the next round sends one event alone (after a failure that may pass, until one goes through; not
     * after a lone event that failed alike, see {@link #nextAlone}).
     * Returns how many events were published. Safe to run by a relay whose lease ran out meanwhile: an event
     * already moved by the relay that took over is simply not there any more, and the lease is no longer its own.
     */
    public int settle(RelaySettlement settlement) {
        RelayRound round = settlement.round();
        int published = archive(settlement.published().stream().map(OutboxEvent::id).toList(), null);
        for (RelaySettlement.Refusal refusal : settlement.refused()) {
            refuse(round.topic(), refusal.event(), refusal.reason());
        }
        boolean oneAlone = nextAlone(settlement);
        jdbc.update("UPDATE outbox_lease SET expires_at = NULL, one_alone = ? WHERE topic = ? AND slice = ?"
                + " AND owner = ?", oneAlone, round.topic(), round.slice(), round.owner());
        if (settlement.waiting() > 0) {
            LOG.warn("outbox relay for {} could not publish {} event(s) of slice {}: {}; they stay in the outbox"
                    + " and are sent again{}", round.topic(), settlement.waiting(), round.slice(),
                    settlement.firstFailure(), oneAlone ? ", one alone first" : "");
        }
        return published;
    }

    /**
     * Whether the slice's next round sends one event alone. After a whole round with a failure that may pass, yes:
     * the broker may have refused a whole batch for one record in it, which only that record sent alone tells. A lone
     * event refused for good: the next alone too, until one goes through. A lone event that failed in a way that
     * passes even alone (its partition without a leader, Kafka away) told nothing a batch hides: the next round is
     * whole again, so the events of the slice's other keys, on partitions that work, go out while that one waits.
     * Kept alone, the slice would send that one event round after round, and every slice soon has such an event
     * first: one partition without a leader held back every event of the topic. A round that never handed its events
     * over heard nothing from Kafka: the slice keeps its mode.
     */
    static boolean nextAlone(RelaySettlement settlement) {
        if (!settlement.handedOver()) {
            return settlement.round().oneAlone();
        }
        if (settlement.round().oneAlone()) {
            return settlement.published().isEmpty() && settlement.waiting() == 0;
        }
        return settlement.waiting() > 0;
    }

    /**
     * Moves the events out of the outbox in one statement: into the archive, or nowhere when no archive is kept.
     * Returns how many were still there.
     */
    private int archive(List<Long> ids, String refused) {
        if (ids.isEmpty()) {
            return 0;
        }
        String sql = archive
                ? "WITH gone AS (DELETE FROM outbox WHERE id = ANY (?)"
                        + " RETURNING id, event_id, topic, event_key, payload, created_at)"
                        + " INSERT INTO outbox_published"
                        + " (id, event_id, topic, event_key, payload, created_at, published_at, refused)"
                        + " SELECT id, event_id, topic, event_key, payload, created_at, now(), ? FROM gone ORDER BY id"
                : "DELETE FROM outbox WHERE id = ANY (?)";
        return jdbc.update(sql, ps -> {
            ps.setArray(1, ps.getConnection().createArrayOf("bigint", ids.toArray()));
            if (archive) {
                ps.setString(2, refused);
            }
        });
    }

    /**
     * An event Kafka refused for good: a dead letter of its job names the event and Kafka's error, and the event
     * leaves the backlog. The job keeps its state: its effects are committed and stand; only their event is
     * missing, which the dead letter (and its own event) tells operators and consumers.
     */
    public void refuse(String topic, OutboxEvent event, Throwable refusal) {
        JsonNode payload = parse(event.payload());
        UUID jobId = uuid(payload.path("job_id").asString(null));
        String supplier = payload.path("supplier").asString(null);
        int bytes = event.payload().getBytes(StandardCharsets.UTF_8).length;
        String message = "Kafka refused event " + event.eventId() + " (key " + event.key() + ", " + bytes
                + " bytes) for topic " + topic + " for good: " + refusal.getMessage()
                + "; the effect stands, its event is not sent (largest event: ingestor.outbox.max-event-size)";
        if (archive(List.of(event.id()), refusal.getClass().getName() + ": " + refusal.getMessage()) == 0) {
            return; // a relay that took over the slice settled it already, dead letter included
        }
        // a refused dead-letter event gets no event of its own: it would be refused alike
        deadLetters.write(new DeadLetterWriter.Failure(jobId, supplier, null, DeadLetterWriter.RELAY_STAGE,
                refusal.getClass().getName(),
                message, 1), !topic.equals(deadLetterTopic));
        metrics.deadLetter(DeadLetterWriter.RELAY_STAGE);
        LOG.error("dead letter supplier={} job={} stage=relay exception={} message=\"{}\"", SafeText.of(supplier),
                jobId,
                refusal.getClass().getName(), SafeText.of(message));
    }

    private JsonNode parse(String payload) {
        try {
            return json.readTree(payload);
        } catch (Exception e) {
            return json.createObjectNode(); // an event that is not JSON still gets its dead letter, without a job
        }
    }

    private static UUID uuid(String text) {
        try {
            return text == null ? null : UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
