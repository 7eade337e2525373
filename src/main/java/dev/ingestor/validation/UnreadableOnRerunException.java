package dev.ingestor.validation;

import java.util.UUID;

/**
 * The file of a job an operator sent round again ({@code ImportJob.rerun}) that validation can no longer read as its
 * supplier's format: its bytes changed on disk, or its supplier's settings did. Its earlier runs may have applied
 * records, so it is not REJECTED (which says a job had no effect): this is a stage failure, and the job goes to the
 * dead-letter channel and is FAILED, its items as they stand; a replay of its dead letter validates it again once the
 * file or the settings are put back. The validation exception is kept as suppressed, not as the cause, so that Camel,
 * which matches a failure's causes too, does not take it for a rejection.
 */
class UnreadableOnRerunException extends RuntimeException {

    UnreadableOnRerunException(UUID jobId, UnreadableFileException e) {
        super("the file of job " + jobId + ", sent round again, can no longer be read: " + e.getMessage()
                + "; its earlier runs may have applied records, so it is failed, not rejected");
        addSuppressed(e);
    }
}
