package dev.ingestor.processing;

/**
 * What became of one record (docs/design.md, Job states and record outcomes). DELETED: a tombstone retired its
 * item; a job counts it with the updates.
 */
public enum RecordOutcome {
    ACCEPTED, UPDATED, DELETED, REPLAY, QUARANTINED
}
