package dev.ingestor.processing;

import java.util.UUID;

/**
 * Processing found a record invalid that validation took: the two stages read it differently (a supplier's hook
 * that fails on one reading, its mapping or the stored bytes changed between the stages). Processing follows
 * validation's verdict for every record, so it cannot pass this one over (neither applied nor quarantined) nor
 * quarantine it now (the job's quarantine is validation's). The job fails with a dead letter, its batches before this
 * record kept; once the cause is put right a replay resumes after them, or a reprocess applies every record again.
 */
class VerdictsDisagreeException extends RuntimeException {

    VerdictsDisagreeException(UUID jobId, long line, String reason) {
        super("job " + jobId + ": the record at line " + line + " was valid when validation read it and is not now ("
                + reason + "); a supplier's hook or settings, or the file, changed between the stages: put it right,"
                + " then replay or reprocess the job");
    }
}
