package dev.ingestor.job;

/** The import job state machine (docs/design.md, Job states and record outcomes). */
public enum JobState {
    RECEIVED, VALIDATING, PROCESSING, COMPLETED, COMPLETED_WITH_ERRORS, REJECTED, FAILED
}
