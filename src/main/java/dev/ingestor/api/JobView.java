package dev.ingestor.api;

import java.time.Instant;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ingestor.job.ImportJob;
import dev.ingestor.job.JobState;
import dev.ingestor.job.RecordCounts;
import dev.ingestor.outbox.FailedJobError;
import dev.ingestor.web.Caller;

/** The job JSON contract (docs/design.md, Contracts). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobView(
        String id, String supplier, String state, String key, String fileName, long size, String source,
        String submittedBy, Instant receivedAt, Instant updatedAt, int duplicateCount, Instant lastSeenAt,
        RecordCounts counts, Progress progress, String error, String requestKey, Map<String, String> links) {

    /** How far processing has read the file: records done of total (total is known once validated). */
    public record Progress(long recordsDone, long total) {
    }

    public static final String JOBS_PATH = "/api/v1/jobs/";

    /** The job as {@code caller} may see it: the admin key whole, a supplier's key {@link #forSupplier}. */
    public static JobView of(ImportJob job, Caller caller) {
        return caller != null && caller.admin() ? whole(job) : forSupplier(job);
    }

    /**
     * The job as a supplier's key sees it: a FAILED job's error is a stable reason and the dead letter's id, no
     * internal text ({@link FailedJobError}); every other error (a REJECTED file's reason) is about the file and
     * shown as it is.
     */
    public static JobView forSupplier(ImportJob job) {
        return view(job, job.state() == JobState.FAILED ? FailedJobError.shownToSupplier(job.error()) : job.error());
    }

    /** The job as the admin key sees it, its error whole. */
    public static JobView whole(ImportJob job) {
        return view(job, job.error());
    }

    private static JobView view(ImportJob job, String error) {
        return new JobView(job.id().toString(), job.supplier(), job.state().name(), job.key().toString(),
                job.fileName(), job.size(), job.source(), job.submittedBy(), job.receivedAt(), job.updatedAt(),
                job.duplicateCount(),
                job.lastSeenAt(), job.counts(), new Progress(job.recordsDone(), job.counts().total()), error,
                job.requestKey(),
                Map.of("self", JOBS_PATH + job.id(), "records", JOBS_PATH + job.id() + "/records?outcome=QUARANTINED"));
    }
}
