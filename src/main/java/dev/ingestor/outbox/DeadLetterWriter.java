package dev.ingestor.outbox;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.config.KafkaSettings;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectMapper;

/**
 * Writes one dead letter and, in the caller's transaction, its event for {@code ingestor.dead-letters}. Every
 * dead letter (a stage that failed, a job that kept killing its workers, an event Kafka refused) goes through
 * here, so all of them look alike to an operator and to consumers. The event goes through {@link OutboxWriter} with
 * an id by its rule, as item events do.
 */
@Component
public class DeadLetterWriter {

    /**
     * The stage of the dead letter of an event Kafka refused for good ({@link OutboxStore#refuse}). It is no failure of
     * its job: the job's effects stand, and sending the job round again would not send the event. An operator
     * acknowledges such a letter; the job's own failure is told by its other letters.
     */
    public static final String RELAY_STAGE = "relay";

    /** What failed, for whom; {@code jobId} may name a job that no longer exists (then the letter has none). */
    public record Failure(UUID jobId, String supplier, String key, String stage, String exception, String message,
            int attempts) {
    }

    /**
     * Published in the writer's thread and transaction once a letter is recorded: its webhook notice is written
     * by a listener in the same transaction (the notification package sits above the outbox and listens).
     */
    public record Recorded(long id, Failure failure) {
    }

    private final JdbcTemplate jdbc;
    private final OutboxWriter outbox;
    private final ObjectMapper json;
    private final String topic;
    private final ApplicationEventPublisher events;

    public DeadLetterWriter(JdbcTemplate jdbc, OutboxWriter outbox, ObjectMapper json, KafkaSettings kafka,
            ApplicationEventPublisher events) {
        this.jdbc = jdbc;
        this.events = events;
        this.outbox = outbox;
        this.json = json;
        this.topic = kafka.getDeadLettersTopic();
    }

    /**
     * Records the dead letter and queues its event; {@code withEvent} false records it only (for an event of
     * the dead-letter topic itself, whose own dead letter would be refused alike). Returns the letter's id.
     */
    public long write(Failure failure, boolean withEvent) {
        // the job may have been removed by retention meanwhile: the letter then stands without it
        Long id = jdbc.queryForObject("INSERT INTO dead_letter (job_id, stage, exception, message, attempts)"
                + " VALUES ((SELECT id FROM import_job WHERE id = ?), ?, ?, ?, ?) RETURNING id", Long.class,
                failure.jobId(), failure.stage(), failure.exception(), failure.message(), failure.attempts());
        if (withEvent) {
            UUID eventId = OutboxWriter.newEventId();
            Map<String, Object> event = new LinkedHashMap<>();
            event.put("event_id", eventId.toString());
            event.put("dead_letter_id", id);
            event.put("job_id", failure.jobId() == null ? null : failure.jobId().toString());
            event.put("supplier", failure.supplier());
            event.put("key", failure.key());
            event.put("stage", failure.stage());
            event.put("exception", failure.exception());
            event.put("message", failure.message());
            event.put("attempts", failure.attempts());
            event.put("failed_at", Instant.now().toString());
            outbox.write(topic, List.of(new OutboxWriter.Event(eventId,
                    failure.jobId() == null ? "unknown" : failure.supplier() + ":" + failure.jobId(), write(event))));
        }
        // the webhook is told in the same transaction; it has an outbox of its own, so a Kafka that refuses
        // events (the case of withEvent false) does not keep it from being told
        events.publishEvent(new Recorded(id == null ? 0 : id, failure));
        return id == null ? 0 : id;
    }

    private String write(Map<String, Object> event) {
        try {
            return json.writeValueAsString(event);
        } catch (JacksonException e) {
            throw new IllegalStateException(e);
        }
    }
}
