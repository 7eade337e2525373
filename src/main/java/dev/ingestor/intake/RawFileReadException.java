package dev.ingestor.intake;

import java.io.IOException;

import dev.ingestor.job.ContentKey;

/**
 * A stored file's bytes could not be read: the disk or the shared volume failed ({@link RawStore#open}). Not the
 * file's fault, and it may read fine again, so a stage redelivers it as it does any I/O failure, and a failure that
 * outlasts the redeliveries leaves the job FAILED and resumable, never REJECTED. Unchecked, and no {@link
 * java.io.UncheckedIOException}, so that a record reader, which takes its parser's I/O failures for a file that
 * cannot be read as its format, passes it on as it is.
 */
public class RawFileReadException extends RuntimeException {

    RawFileReadException(ContentKey key, IOException cause) {
        super("the stored file of " + key + " could not be read (" + cause.getMessage() + "); it is read again", cause);
    }
}
