package dev.ingestor.outbox;

import java.util.List;

/**
 * Kafka's answers to a relay round, for the round's second transaction to record: the events acknowledged, those
 * refused for good, and how many failed in a way that may pass (with the first such failure, for the log). Events
 * of the round not named here were not sent and simply stay pending. {@code handedOver}: the round got to hand its
 * events to the producer; a round that did not (another round of this instance held the producer for a lone event
 * past the hand-over time) heard nothing from Kafka about its own.
 */
record RelaySettlement(RelayRound round, List<OutboxEvent> published, List<Refusal> refused, int waiting,
        String firstFailure, boolean handedOver) {

    /** An event Kafka refused for good, and why. */
    record Refusal(OutboxEvent event, Throwable reason) {
    }
}
