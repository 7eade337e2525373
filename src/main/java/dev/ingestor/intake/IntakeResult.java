package dev.ingestor.intake;

import dev.ingestor.job.ImportJob;
import dev.ingestor.job.JobState;

/** What intake made of one arrival: the job it belongs to and whether the arrival created it. */
public record IntakeResult(ImportJob job, boolean duplicate) {

    /** The folder-friendly word for this outcome; file sources move the file to {@code .<outcome>/}. */
    public String outcome() {
        if (duplicate) {
            return "duplicate";
        }
        return job.state() == JobState.REJECTED ? "rejected" : "done";
    }
}
