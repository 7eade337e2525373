package dev.ingestor.job;

import java.util.UUID;

/** This worker's lease on a job ran out and another worker took the job; this one must stop touching it. */
public class LeaseLostException extends RuntimeException {

    public LeaseLostException(UUID jobId) {
        super("lease on job " + jobId + " was lost to another worker; this worker stops and leaves the job to it");
    }
}
