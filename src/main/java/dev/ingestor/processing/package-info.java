/**
 * The processing stage (routes/processing.camel.yaml): item-level idempotency on
 * {@code (supplier, source_id, source_version)}; each applied batch commits its items and their outbox events together.
 */
package dev.ingestor.processing;
