package dev.ingestor.job;

/** The import job state machine (DESIGN.md). */
public enum JobState {
    RECEIVED, VALIDATING, PROCESSING, COMPLETED, COMPLETED_WITH_ERRORS, REJECTED, FAILED;

    public boolean isFinal() {
        return this == COMPLETED || this == COMPLETED_WITH_ERRORS || this == REJECTED;
    }
}
