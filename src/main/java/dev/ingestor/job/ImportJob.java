package dev.ingestor.job;

import java.time.Instant;
import java.util.UUID;

import dev.ingestor.config.RecordFormat;

/**
 * One distinct file of one supplier, and what became of it. {@code submittedBy} is who handed it in first (a
 * duplicate does not change it); null for jobs made before it was recorded. {@code lease} is the lease its worker
 * held when it was read (null: none): for a job a worker just claimed, that claim's own, which every write the worker
 * makes to the job names ({@link JobClaims}). {@code rerun}: an operator has sent the job round again since it was
 * received (re-validated, reprocessed, or resumed after its dead letter), so its earlier runs may have made
 * effects ({@code ItemStore} says what a re-run may still do).
 */
public record ImportJob(
        UUID id,
        String supplier,
        JobState state,
        ContentKey key,
        String fileName,
        long size,
        String source,
        Instant receivedAt,
        Instant updatedAt,
        int duplicateCount,
        Instant lastSeenAt,
        RecordCounts counts,
        String error,
        long recordsDone,
        String requestKey,
        RecordFormat format,
        String submittedBy,
        String lease,
        boolean rerun) {

    /**
     * Whether the job is an HTTP item batch (its request key names it): its stored content is the batch's items, one
     * canonical JSON line each, not a file in its supplier's format.
     */
    public boolean isItemBatch() { return requestKey != null; }

    /**
     * Short, because Camel's simple language prints both sides of each comparison it makes: the stage worker's
     * {@code ${body} == null} prints the job it just claimed, on every claim (all seventeen fields, as a record
     * prints itself, would cost more than the comparison is worth).
     */
    @Override
    public String toString() {
        return "ImportJob[" + id + " " + supplier + " " + state + "]";
    }
}
