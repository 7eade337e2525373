package dev.ingestor.intake;

import java.io.IOException;

/**
 * A dropped file intake did not read, and whose arrival is no failure of the file: written to since its listing found
 * it settled ({@link FileChangedSinceSettledException}), or gone before it was opened ({@link FileGoneException}). No
 * redelivery, no record, no notice, no move: whatever is there stays where it is, and a later listing takes it.
 */
public abstract class FileNotReadException extends IOException {

    protected FileNotReadException(String message) {
        super(message);
    }
}
