package dev.ingestor.intake;

import dev.ingestor.job.ImportJob;
import dev.ingestor.job.ImportJobStore;
import org.apache.camel.Body;
import org.apache.camel.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The job row of intake-register's last step (routes/intake.camel.yaml), inside the transaction that inserted the
 * content key, so a key is written with its job and retention deletes them together.
 */
@Component
class JobRegistration {

    private static final Logger LOG = LoggerFactory.getLogger(JobRegistration.class);

    private final ImportJobStore jobs;

    JobRegistration(ImportJobStore jobs) {
        this.jobs = jobs;
    }

    /** A new key: a new job, RECEIVED (REJECTED when the file is empty). */
    public IntakeResult create(@Body StoredContent content,
            @Header(IntakeHeaders.FILE_NAME) String fileName,
            @Header(IntakeHeaders.SOURCE) String source,
            @Header(IntakeHeaders.SUBMITTED_BY) String submittedBy) {
        return new IntakeResult(jobs.open(content.key(), content.size(), fileName, source, submittedBy), false);
    }

    /**
     * A key registered already: one more arrival counted on its job. A key can outlive its job: a job row deleted
     * by hand, or a file's key kept while an item batch's job shares it. Then the bytes intake holds (in place
     * under the key) are taken as new content, a new job of this arrival. Intake holds the key's lock, so of
     * arrivals racing here one makes the job and the others count on it (and the unique index on a file job's key
     * stands behind).
     */
    public IntakeResult recordDuplicate(@Body StoredContent content,
            @Header(IntakeHeaders.FILE_NAME) String fileName,
            @Header(IntakeHeaders.SOURCE) String source,
            @Header(IntakeHeaders.SUBMITTED_BY) String submittedBy) {
        ImportJob counted = jobs.countArrival(content.key()).orElse(null);
        if (counted != null) {
            return new IntakeResult(counted, true);
        }
        IntakeResult taken = create(content, fileName, source, submittedBy);
        LOG.warn("content key {} had no import job (deleted other than by retention): its bytes are taken as new"
                + " content, job {}", content.key(), taken.job().id());
        return taken;
    }
}
