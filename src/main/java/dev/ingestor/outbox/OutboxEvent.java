package dev.ingestor.outbox;

import java.util.UUID;

import dev.ingestor.logging.SafeText;

/** One row of the outbox on its way to Kafka. */
record OutboxEvent(long id, UUID eventId, String key, String payload) {

    /**
     * Its id, event id, key (made safe: a supplier's source id) and size: never the payload, a supplier's record,
     * which is no text for a log line.
     */
    @Override
    public String toString() {
        return "OutboxEvent[id=" + id + ", eventId=" + eventId + ", key=" + SafeText.of(key, 200) + ", payload of "
                + payload.length()
                + " chars]";
    }
}
