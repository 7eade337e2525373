package dev.ingestor.web;

import java.time.Instant;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.ingestor.job.ImportJob;
import dev.ingestor.job.RecordCounts;

/** The job JSON contract (docs/design.md, Contracts). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JobView(
        String id,
        String supplier,
        String state,
        String key,
        String fileName,
        long size,
        String source,
        String submittedBy,
        Instant receivedAt,
        Instant updatedAt,
        int duplicateCount,
        Instant lastSeenAt,
        RecordCounts counts,
        Progress progress,
        String error,
        String requestKey,
        Map<String, String> links) {

    /** How far processing has read the file: records done of total (total is known once validated). */
    public record Progress(long recordsDone, long total) {
    }

    public static final String JOBS_PATH = "/api/v1/jobs/";

    public static JobView of(ImportJob job) {
        return new JobView(job.id().toString(), job.supplier(), job.state().name(), job.key().toString(),
                job.fileName(), job.size(), job.source(), job.submittedBy(), job.receivedAt(), job.updatedAt(), job.duplicateCount(),
                job.lastSeenAt(), job.counts(), new Progress(job.recordsDone(), job.counts().total()), job.error(),
                job.requestKey(), Map.of("self", JOBS_PATH + job.id(), "records", JOBS_PATH + job.id() + "/records?outcome=QUARANTINED"));
    }
}
