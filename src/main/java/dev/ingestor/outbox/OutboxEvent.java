package dev.ingestor.outbox;

import java.util.UUID;

/** One row of the outbox on its way to Kafka. */
record OutboxEvent(long id, UUID eventId, String key, String payload) {

    /** Its id, event id, key and size: never the payload, a supplier's record, which is no text for a log line. */
    @Override
    public String toString() {
        return "OutboxEvent[id=" + id + ", eventId=" + eventId + ", key=" + key + ", payload of " + payload.length()
                + " chars]";
    }
}
