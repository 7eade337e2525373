package dev.ingestor.validation;

import dev.ingestor.logging.SafeText;

/** The file as a whole cannot be read as its supplier's format: a final error, the job is REJECTED. */
public class UnreadableFileException extends RuntimeException {

    public UnreadableFileException(String reason) {
        super(SafeText.of(reason));
    }

    public UnreadableFileException(String reason, Throwable cause) {
        super(SafeText.of(reason), cause);
    }
}
