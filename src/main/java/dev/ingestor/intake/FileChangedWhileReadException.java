package dev.ingestor.intake;

import java.io.IOException;

/**
 * A file changed while intake read it: its supplier writes it again in place, or renamed another over it. What was
 * read may be half of one version and half of another, so nothing of it is kept. An I/O failure like any other, so
 * the source tries again after its back-off, when the writing is likely done, and reads the file as it is then.
 */
public class FileChangedWhileReadException extends IOException {

    FileChangedWhileReadException(String file, String what) {
        super("the file " + file + " changed while it was read (" + what + "); it is read again");
    }
}
