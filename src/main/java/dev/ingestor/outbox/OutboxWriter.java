package dev.ingestor.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.UUID;

import dev.ingestor.wakeup.WorkChannels;
import dev.ingestor.wakeup.WorkNotices;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * The one way events enter the outbox, in the transaction of their effect (docs/design.md, Outbox and event ids).
 * Item events and dead-letter events alike: the effect's owner builds the payload, naming in it the event id it
 * got from {@link #newEventId}, and hands the events here; a batch of them is one statement, whatever its size.
 *
 * <p>The event id rule lives here and nowhere else: a fresh random UUID per effect, stored in the event's row.
 * The relay sends the stored id, so a resend of the event (a crash before its publication was recorded) carries
 * the same id, and no later effect ever gets an earlier one's id, even when it brings back earlier content.
 */
@Component
public class OutboxWriter {

    /** One event on its way into the outbox: its id, its Kafka key and its payload as sent. */
    public record Event(UUID eventId, String key, String payload) {
    }

    // in the order given: the relay sends a topic's events in the order of their rows
    private static final String INSERT = """
            INSERT INTO outbox (event_id, topic, event_key, payload)
            SELECT event_id, ?, event_key, payload
            FROM unnest(?::uuid[], ?::text[], ?::text[]) WITH ORDINALITY AS e(event_id, event_key, payload, n)
            ORDER BY n
            """;

    private final JdbcTemplate jdbc;
    private final WorkNotices notices;

    public OutboxWriter(JdbcTemplate jdbc, WorkNotices notices) {
        this.jdbc = jdbc;
        this.notices = notices;
    }

    /**
     * Says that the caller's transaction wrote events of {@code topic} (by a statement of {@link #insertEvents}):
     * the topic's relays are woken once it commits.
     */
    public void written(String topic) {
        notices.afterCommit(WorkChannels.OUTBOX, topic);
    }

    /** The id of a new effect's event. */
    public static UUID newEventId() {
        return UUID.randomUUID();
    }

    /**
     * Ids for the effects a set-based statement may make, one per record it is given: a record that turns out
     * to have no effect (a REPLAY) leaves its id unused, so every id still names at most one effect.
     */
    public static UUID[] newEventIds(int count) {
        UUID[] ids = new UUID[count];
        for (int i = 0; i < count; i++) {
            ids[i] = newEventId();
        }
        return ids;
    }

    /**
     * The outbox's part of a statement that makes effects and writes their events in the same statement (a
     * data-modifying CTE), so the events never travel to this JVM and back: the INSERT of the rows {@code rows}
     * gives, in the order of their {@code n}. {@code rows} is a query with the columns event_id (from
     * {@link #newEventIds}), topic, event_key, payload and n.
     */
    public static String insertEvents(String rows) {
        return "INSERT INTO outbox (event_id, topic, event_key, payload)"
                + " SELECT e.event_id, e.topic, e.event_key, e.payload FROM (" + rows + ") e ORDER BY e.n";
    }

    /** Writes the events of {@code topic} in the caller's transaction, in one statement; returns how many. */
    public int write(String topic, List<Event> events) {
        if (events.isEmpty()) {
            return 0;
        }
        int n = events.size();
        UUID[] ids = new UUID[n];
        String[] keys = new String[n];
        String[] payloads = new String[n];
        for (int i = 0; i < n; i++) {
            Event event = events.get(i);
            ids[i] = event.eventId();
            keys[i] = event.key();
            payloads[i] = event.payload();
        }
        Integer written = jdbc.execute((Connection c) -> {
            try (PreparedStatement ps = c.prepareStatement(INSERT)) {
                ps.setString(1, topic);
                ps.setArray(2, c.createArrayOf("uuid", ids));
                ps.setArray(3, c.createArrayOf("text", keys));
                ps.setArray(4, c.createArrayOf("text", payloads));
                return ps.executeUpdate();
            }
        });
        written(topic);
        return written == null ? 0 : written;
    }
}
