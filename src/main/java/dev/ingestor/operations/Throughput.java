package dev.ingestor.operations;

import java.time.Instant;
import java.util.List;

/** The admin throughput answer: per minute, oldest first, the current minute last; empty minutes are zeros. */
public record Throughput(int minutes, List<Minute> items) {

    /**
     * One minute: jobs received, jobs finished by end state, the records of the jobs finished that minute by
     * outcome (records count in the minute their job finished), files refused or failed at intake.
     */
    public record Minute(Instant minute, long received, long completed, long completedWithErrors, long rejected,
            long failed, long accepted, long updated, long replayed, long quarantined, long intakeFailures) {
    }
}
