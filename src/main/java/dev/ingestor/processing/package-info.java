/**
 * The processing stage (routes/processing.camel.yaml): item-level idempotency on
 * {@code (supplier, source_id, source_version)}; each applied batch commits its items and their outbox events together.
 * {@code ItemApplier} is the one apply loop, used by this stage and by an HTTP item batch applied at once.
 */
package dev.ingestor.processing;
