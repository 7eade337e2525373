package dev.ingestor.operations;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.ingestor.api.JobView;
import dev.ingestor.api.QuarantineView;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * The admin API's answers as the OpenAPI document describes them (routes/admin-api.camel.yaml names these
 * classes). {@link AdminApi} writes the same fields from its queries; these types exist so that a partner's or an
 * operator's generated client is typed, and {@code web.OpenApiDocumentTest} checks them against real answers.
 */
public final class AdminViews {

    private AdminViews() {
    }

    @Schema(name = "AdminOverview", description = "Jobs per state and per supplier and state, dead letters waiting, outbox backlog")
    public record Overview(
            @Schema(description = "Jobs per state, every state present") Map<String, Long> states,
            @Schema(description = "Jobs per supplier, then per state") Map<String, Map<String, Long>> suppliers,
            @Schema(description = "Dead letters not replayed yet", example = "1") long deadLettersWaiting,
            @Schema(description = "Outbox events not yet sent to Kafka", example = "0") long outboxPending,
            Instant generatedAt) {
    }

    @Schema(name = "AdminJob", description = "A job with the first page of its quarantined records and its dead letters")
    public record Job(JobView job, QuarantineView.RecordList quarantined, List<DeadLetter> deadLetters) {
    }

    @Schema(name = "DeadLetter", description = "A stage that gave up on a job after its retries")
    public record DeadLetter(
            @Schema(example = "17") long id,
            @Schema(format = "uuid") String jobId,
            @Schema(example = "ACME") String supplier,
            @Schema(description = "The stage that gave up", example = "processing") String stage,
            @Schema(example = "org.springframework.dao.DataAccessResourceFailureException") String exception,
            String message,
            @Schema(example = "3") int attempts,
            Instant createdAt,
            @Schema(description = "When it was sent back to its stage, if it was") Instant replayedAt,
            @Schema(description = "Who sent it back") String replayedBy) {
    }

    @Schema(name = "DeadLetterPage", description = "Dead letters, newest first")
    public record DeadLetterPage(List<DeadLetter> items, int page, int size, long total) {
    }

    @Schema(name = "FailedJob", description = "A FAILED job with the stage, exception, message and attempts of its last dead letter")
    public record FailedJob(
            @Schema(format = "uuid") String id,
            String supplier,
            String fileName,
            String key,
            String error,
            Instant failedAt,
            Long deadLetterId,
            String stage,
            String exception,
            String message,
            Integer attempts) {
    }

    @Schema(name = "FailedJobPage", description = "FAILED jobs, most recently failed first; total counts every match")
    public record FailedJobPage(List<FailedJob> items, int page, int size, long total) {
    }

    @Schema(name = "RequestKey", description = "One Idempotency-Key of a supplier as the server keeps it")
    public record RequestKey(
            @Schema(example = "ACME") String supplier,
            @Schema(example = "1b4e28ba-2fa1-11d2-883f-0016d3cca427") String key,
            @Schema(allowableValues = {"IN_PROGRESS", "COMPLETED"}) String state,
            @Schema(description = "SHA-256 of the request the key was first used for") String fingerprint,
            @Schema(description = "The instance working on it, while IN_PROGRESS") String owner,
            Instant leaseUntil,
            @Schema(description = "The stored answer's HTTP status, once COMPLETED") Integer status,
            @Schema(format = "uuid") String jobId,
            Instant createdAt,
            Instant completedAt,
            Instant expiresAt) {
    }

    @Schema(name = "ActionResult", description = "An action taken")
    public record ActionResult(@Schema(example = "queued for validation") String result) {
    }

    @Schema(name = "RetryFailedResult", description = "How many FAILED jobs of the supplier were sent back")
    public record RetryFailedResult(@Schema(example = "ACME") String supplier, @Schema(example = "3") int jobs) {
    }

    @Schema(name = "IntakeFailure", description = "A file rejected or failed at intake, from any source, and where it is now")
    public record IntakeFailure(
            long id,
            @Schema(description = "Supplier code, or the folder of a stray file") String supplier,
            @Schema(example = "file-drop") String source,
            String fileName,
            Long size,
            @Schema(example = "rejected") String outcome,
            String reason,
            @Schema(format = "date-time", description = "The first arrival this row counts") String occurredAt,
            @Schema(description = "Arrivals this row counts: refusals that kept nothing, of one supplier, source,"
                    + " outcome and reason within ingestor.intake.failure-coalesce-window, are one row", example = "1") int count,
            @Schema(format = "date-time", description = "The last arrival this row counts") String lastOccurredAt,
            @Schema(description = "Where the file is now; none when nothing was kept") String location,
            @Schema(format = "date-time") String retriedAt,
            String retriedBy) {
    }

    @Schema(name = "IntakeFailurePage", description = "Intake failures, newest first")
    public record IntakeFailurePage(List<IntakeFailure> items, int page, int size, long total) {
    }

    @Schema(name = "IntakeFailureRetried", description = "A failed dropped file moved back into its inbox folder")
    public record IntakeFailureRetried(@Schema(example = "moved back to the inbox") String result, String file) {
    }

    @Schema(name = "ThroughputMinute", description = "One minute: jobs received, jobs finished by end state, the records"
            + " of the jobs finished that minute by outcome (records count in the minute their job finished), intake failures")
    public record Minute(
            @Schema(description = "The minute's start") Instant minute,
            @Schema(description = "Jobs received") long received,
            @Schema(description = "Jobs finished COMPLETED") long completed,
            @Schema(description = "Jobs finished COMPLETED_WITH_ERRORS") long completedWithErrors,
            @Schema(description = "Jobs finished REJECTED") long rejected,
            @Schema(description = "Jobs finished FAILED") long failed,
            @Schema(description = "Records accepted (new items)") long accepted,
            @Schema(description = "Records that updated an item") long updated,
            @Schema(description = "Records already applied before (no change)") long replayed,
            @Schema(description = "Records quarantined") long quarantined,
            @Schema(description = "Files refused or failed at intake") long intakeFailures) {
    }

    @Schema(name = "Throughput", description = "Per minute, oldest first, the current minute last; empty minutes are zeros")
    public record Throughput(@Schema(example = "60") int minutes, List<Minute> items) {
    }
}
