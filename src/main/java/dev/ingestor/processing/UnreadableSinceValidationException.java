package dev.ingestor.processing;

import java.util.UUID;

import dev.ingestor.validation.UnreadableFileException;

/**
 * A validated job's file that processing cannot read as its supplier's format: its bytes changed since validation,
 * or its supplier's settings did (the supplier removed, another delimiter or mapping). Unlike validation's {@link
 * UnreadableFileException}, which rejects a job before any effect, this is a stage failure: the job goes to the
 * dead-letter channel and is FAILED, keeping the batches it has applied, and a replay of its dead letter resumes it
 * after its checkpoint once the file or the settings are put back. The validation exception is kept as suppressed,
 * not as the cause, so that Camel, which matches a failure's causes too, does not take it for a rejection.
 */
class UnreadableSinceValidationException extends RuntimeException {

    UnreadableSinceValidationException(UUID jobId, UnreadableFileException e) {
        super("the file of job " + jobId + " can no longer be read as it was validated: " + e.getMessage()
                + "; the job keeps the batches it applied and resumes after them when its dead letter is replayed");
        addSuppressed(e);
    }
}
