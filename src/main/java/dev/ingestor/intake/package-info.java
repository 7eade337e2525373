/**
 * The shared intake of routes/intake.camel.yaml, where every source ends: the checks before a byte is stored
 * ({@link dev.ingestor.intake.IntakeGate}), the content key {@code supplier:sha256}, the content-addressed raw store,
 * the idempotent consumer's repository on PostgreSQL, the per-key lock that serialises intake with retention, the
 * job row intake opens for new content, its outcome counted, and the one record of an arrival that became no job.
 */
package dev.ingestor.intake;
