package dev.ingestor.outbox;

import java.util.List;

/**
 * What one relay round took: the lease of one slice of a topic, held by {@code owner}, and the slice's next
 * events, oldest first. {@code takenAt} is this JVM's {@link System#nanoTime()} just before the statement that took the
 * lease: the round hands no record to the producer later than {@code ingestor.outbox.kafka-timeout} after it.
 */
record RelayRound(String topic, int slice, String owner, boolean oneAlone, long takenAt, List<OutboxEvent> events) {
}
