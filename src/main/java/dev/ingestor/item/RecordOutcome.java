package dev.ingestor.item;

/** What became of one record (DESIGN.md, contracts). */
public enum RecordOutcome {
    ACCEPTED, UPDATED, REPLAY, QUARANTINED
}
