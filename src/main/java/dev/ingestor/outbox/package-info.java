/**
 * The transactional outbox (routes/outbox-relay.camel.yaml): events are written in the transaction of their effect,
 * and the relay sends them to Kafka and settles each on its own outcome. Every event, of an item or of a dead letter,
 * enters through {@code OutboxWriter}, which owns the event-id rule.
 */
package dev.ingestor.outbox;
