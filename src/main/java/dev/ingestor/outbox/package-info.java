/**
 * The transactional outbox (routes/outbox-relay.camel.yaml): events are written in the transaction of their effect,
 * and the relay sends them to Kafka and settles each on its own outcome. Dead-letter events are written here too.
 */
package dev.ingestor.outbox;
