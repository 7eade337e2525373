package dev.ingestor.outbox;

import java.util.UUID;

/** One row of the outbox on its way to Kafka. */
record OutboxEvent(long id, UUID eventId, String key, String payload) {
}
