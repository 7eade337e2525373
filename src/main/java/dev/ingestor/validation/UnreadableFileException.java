package dev.ingestor.validation;

import dev.ingestor.logging.SafeText;

/** The file as a whole cannot be read as its supplier's format: a final error, the job is REJECTED. */
public class UnreadableFileException extends RuntimeException {

    public UnreadableFileException(String reason) {
        super(SafeText.of(reason));
    }

    /** A file with not one record in it: nothing to do, and most likely not what the supplier meant to send. */
    public static UnreadableFileException noRecords() {
        return new UnreadableFileException("the file holds no records");
    }

    public UnreadableFileException(String reason, Throwable cause) {
        super(SafeText.of(reason), cause);
    }
}
