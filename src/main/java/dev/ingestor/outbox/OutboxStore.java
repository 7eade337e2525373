package dev.ingestor.outbox;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;

import dev.ingestor.config.KafkaSettings;
import dev.ingestor.logging.SafeText;
import dev.ingestor.metrics.IngestorMetrics;
import org.apache.camel.ExchangeProperty;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The relay's side of the outbox. Called inside one transaction per batch: take the oldest unpublished events
 * of a topic, send them ({@link OutboxRelay}), settle each. A transaction-scoped advisory lock lets one relay per
 * topic run at a time across all instances, so events leave in the order they were written (per key, Kafka keeps
 * it). If Kafka is unreachable the events wait for the next round.
 */
@Component
public class OutboxStore {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.outbox");

    private final JdbcTemplate jdbc;
    private final DeadLetterWriter deadLetters;
    private final ObjectMapper json;
    private final IngestorMetrics metrics;
    private final String deadLetterTopic;
    private final int limit;
    private final long bytes;

    public OutboxStore(JdbcTemplate jdbc, DeadLetterWriter deadLetters, ObjectMapper json, IngestorMetrics metrics,
            KafkaSettings kafka, OutboxSettings settings) {
        this.jdbc = jdbc;
        this.deadLetters = deadLetters;
        this.json = json;
        this.metrics = metrics;
        this.deadLetterTopic = kafka.getDeadLettersTopic();
        this.limit = settings.getBatchSize();
        this.bytes = settings.getBatchBytes().toBytes();
    }

    /** Events written but not yet published, on every topic: the backlog an operator sees. */
    public long pending() {
        Long pending = jdbc.queryForObject("SELECT count(*) FROM outbox WHERE published_at IS NULL", Long.class);
        return pending == null ? 0 : pending;
    }

    /**
     * The next events of {@code topic}, oldest first, for the relay of the topic, which this transaction is
     * until it ends; or an empty list when another transaction is. The rows are not locked one by one: the
     * topic's advisory lock already makes this the only relay of the topic, and nothing else changes an event
     * before it is published (a row lock per event wrote every row once more).
     */
    public List<OutboxEvent> nextBatch(@ExchangeProperty(OutboxRelay.TOPIC) String topic) {
        Boolean leader = jdbc.queryForObject("SELECT pg_try_advisory_xact_lock(hashtext('ingestor.outbox:' || ?))",
                Boolean.class, topic);
        if (!Boolean.TRUE.equals(leader)) {
            return List.of();
        }
        // at most `limit` events, and no more payload bytes than `bytes` after the first event
        return jdbc.query("SELECT id, event_id, event_key, payload FROM ("
                + " SELECT id, event_id, event_key, payload, size, sum(size) OVER (ORDER BY id) AS through"
                + " FROM (SELECT id, event_id, event_key, payload, octet_length(payload) AS size FROM outbox"
                + "   WHERE topic = ? AND published_at IS NULL ORDER BY id LIMIT ?) oldest) e"
                + " WHERE through = size OR through <= ? ORDER BY id",
                (rs, row) -> new OutboxEvent(rs.getLong("id"), rs.getObject("event_id", UUID.class),
                        rs.getString("event_key"), rs.getString("payload")),
                topic, limit, bytes);
    }

    public int markPublished(List<Long> ids) {
        if (ids.isEmpty()) {
            return 0;
        }
        return jdbc.update("UPDATE outbox SET published_at = now() WHERE id = ANY (?)",
                ps -> ps.setArray(1, ps.getConnection().createArrayOf("bigint", ids.toArray())));
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
        jdbc.update("UPDATE outbox SET published_at = now(), refused = ? WHERE id = ?",
                refusal.getClass().getName() + ": " + refusal.getMessage(), event.id());
        // a refused dead-letter event gets no event of its own: it would be refused alike
        deadLetters.write(new DeadLetterWriter.Failure(jobId, supplier, null, "relay", refusal.getClass().getName(),
                message, 1), !topic.equals(deadLetterTopic));
        metrics.deadLetter("relay");
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
