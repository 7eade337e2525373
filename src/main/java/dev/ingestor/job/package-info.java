/**
 * Import jobs: one per distinct file of a supplier, named by its content key {@code supplier:sha256}; their state
 * machine (every change of state is a transition of {@link dev.ingestor.job.JobLifecycle}), the claims and leases by
 * which the stage workers of
 * routes/stage-worker.camel.yaml share the work across instances, and the dead-letter channel's end
 * (routes/dead-letter.camel.yaml).
 */
package dev.ingestor.job;
