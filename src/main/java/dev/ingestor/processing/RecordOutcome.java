package dev.ingestor.processing;

/** What became of one record (docs/design.md, Job states and record outcomes). */
public enum RecordOutcome {
    ACCEPTED, UPDATED, REPLAY, QUARANTINED
}
