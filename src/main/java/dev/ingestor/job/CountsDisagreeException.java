package dev.ingestor.job;

import java.util.UUID;

/**
 * Processing came to the end of a job whose records do not add up to what validation counted: a record validation
 * took was not applied (a supplier's hook that failed on processing's reading, and made it a broken record), or one
 * it quarantined was, or the file held other records (its bytes, its supplier's mapping or its limits changed
 * between the stages). The job's last batch rolls back and the job fails with a dead letter: nothing is passed over
 * unseen, and once the cause is put right a reprocess of the job applies every record again by the version rules.
 */
public class CountsDisagreeException extends RuntimeException {

    public CountsDisagreeException(UUID jobId, long total, long quarantined, long applied, long read) {
        super("job " + jobId + " does not add up: validation counted " + total + " records, " + quarantined
                + " of them quarantined, and processing read " + read + " and applied " + applied + " (it should be "
                + (total - quarantined) + "); a supplier's hook or settings, or the file, changed between the stages:"
                + " put it right, then reprocess the job");
    }
}
