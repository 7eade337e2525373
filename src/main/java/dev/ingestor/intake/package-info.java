/**
 * The shared intake of routes/intake.camel.yaml, where every source ends: the checks before a byte is stored
 * ({@link dev.ingestor.intake.IntakeGate}), the content key {@code supplier:sha256}, the content-addressed raw store,
 * the idempotent consumer's repository on PostgreSQL, and the per-key lock that serialises intake with retention.
 */
package dev.ingestor.intake;
