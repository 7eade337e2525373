package dev.ingestor.operations;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.ingestor.api.JobView;
import dev.ingestor.api.QuarantineView;

/**
 * The admin API's answers as the OpenAPI document describes them (routes/admin-api.camel.yaml names these
 * classes). {@link AdminApi} writes the same fields from its queries; these types exist so that a partner's or an
 * operator's generated client is typed, and {@code web.OpenApiDocumentTest} checks them against real answers.
 */
public final class AdminViews {

    private AdminViews() {
    }

    public record Overview(Map<String, Long> states, Map<String, Map<String, Long>> suppliers, long deadLettersWaiting,
            long outboxPending, Instant generatedAt) {
    }

    public record Job(JobView job, QuarantineView.RecordList quarantined, List<DeadLetter> deadLetters) {
    }

    public record DeadLetter(long id, String jobId, String supplier, String stage, String exception, String message,
            int attempts, Instant createdAt, Instant replayedAt, String replayedBy) {
    }

    public record DeadLetterPage(List<DeadLetter> items, int page, int size, long total) {
    }

    public record FailedJob(String id, String supplier, String fileName, String key, String error, Instant failedAt,
            Long deadLetterId, String stage, String exception, String message, Integer attempts) {
    }

    public record FailedJobPage(List<FailedJob> items, int page, int size, long total) {
    }

    public record RequestKey(String supplier, String key, String state, String fingerprint, String owner,
            Instant leaseUntil, Integer status, String jobId, Instant createdAt, Instant completedAt,
            Instant expiresAt) {
    }

    public record ActionResult(String result) {
    }

    public record RetryFailedResult(String supplier, int jobs) {
    }

    public record IntakeFailure(long id, String supplier, String source, String fileName, Long size, String outcome,
            String reason, String occurredAt, int count, String lastOccurredAt, String location, String retriedAt,
            String retriedBy) {
    }

    public record IntakeFailurePage(List<IntakeFailure> items, int page, int size, long total) {
    }

    public record IntakeFailureRetried(String result, String file) {
    }

    public record Minute(Instant minute, long received, long completed, long completedWithErrors, long rejected,
            long failed, long accepted, long updated, long replayed, long quarantined, long intakeFailures) {
    }

    public record Throughput(int minutes, List<Minute> items) {
    }
}
