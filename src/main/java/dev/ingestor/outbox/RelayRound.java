package dev.ingestor.outbox;

import java.util.List;

/**
 * What one relay round took: the lease of one slice of a topic, held by {@code owner}, and the slice's next
 * events, oldest first. {@code takenAt} is this JVM's {@link System#nanoTime()} just before the statement that took the
 * lease: the round hands no record to the producer later than {@code ingestor.outbox.kafka-timeout} after it.
 */
record RelayRound(String topic, int slice, String owner, boolean oneAlone, long takenAt, List<OutboxEvent> events) {

    /**
     * The slice and how many events, not the events: Camel's simple language writes the body out whenever a
     * comparison with it fails (the route's {@code ${body} == null} on every round that took one), and a round's
     * events with their payloads made that about 15% of the relay thread's CPU.
     */
    @Override
    public String toString() {
        return "RelayRound[topic=" + topic + ", slice=" + slice + ", owner=" + owner + ", " + events.size()
                + " events" + (events.isEmpty()
                        ? ""
                        : " (ids " + events.get(0).id() + " to "
                                + events.get(events.size() - 1).id() + ")")
                + "]";
    }
}
