package dev.ingestor.api;

import dev.ingestor.web.Caller;
import java.time.Instant;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;
import dev.ingestor.job.ImportJob;
import dev.ingestor.job.JobState;
import dev.ingestor.outbox.FailedJobError;
import dev.ingestor.job.RecordCounts;

/** The job JSON contract (docs/design.md, Contracts). */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Schema(name = "Job", description = "An import job: one received file or item batch and how far it has come")
public record JobView(
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, description = "Job id", format = "uuid", example = "7d0c1a52-3f4e-4b8a-9a51-0f6f2d1c9e11") String id,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, description = "Supplier code", example = "ACME") String supplier,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, description = "Job state", example = "COMPLETED",
                allowableValues = {"RECEIVED", "VALIDATING", "PROCESSING", "COMPLETED", "COMPLETED_WITH_ERRORS",
                        "REJECTED", "FAILED"}) String state,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, description = "Content key: supplier and the SHA-256 of the bytes",
                example = "ACME:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08") String key,
        @Schema(description = "The file's name as received", example = "deliveries-2026-11-23.csv") String fileName,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, description = "Bytes", example = "2048") long size,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, description = "How it arrived", example = "http") String source,
        @Schema(description = "Who handed it in first: supplier:<CODE>, admin, an SFTP server or drop:<folder>",
                example = "supplier:ACME") String submittedBy,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, example = "2026-11-23T10:15:30Z") Instant receivedAt,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, example = "2026-11-23T10:15:32Z") Instant updatedAt,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, description = "How often the same bytes arrived again", example = "0") int duplicateCount,
        Instant lastSeenAt,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) RecordCounts counts,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED) Progress progress,
        @Schema(description = "The reason, when REJECTED or FAILED; for a FAILED job a supplier's key is shown the stage"
                + " that failed and the dead letter's id, the admin key the whole error",
                example = "processing failed (dead letter 42)") String error,
        @Schema(description = "The Idempotency-Key of the item batch that made it") String requestKey,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, description = "self: this job; records: its quarantined records") Map<String, String> links) {

    /** How far processing has read the file: records done of total (total is known once validated). */
    @Schema(name = "JobProgress")
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
                job.fileName(), job.size(), job.source(), job.submittedBy(), job.receivedAt(), job.updatedAt(), job.duplicateCount(),
                job.lastSeenAt(), job.counts(), new Progress(job.recordsDone(), job.counts().total()), error,
                job.requestKey(), Map.of("self", JOBS_PATH + job.id(), "records", JOBS_PATH + job.id() + "/records?outcome=QUARANTINED"));
    }
}
