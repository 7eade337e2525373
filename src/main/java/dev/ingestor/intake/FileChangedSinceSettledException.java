package dev.ingestor.intake;

/**
 * A dropped file was written to after its route's listing found it settled, before intake opened it: a supplier that
 * paused longer than {@code min-age} and wrote on. What is there now may be half written, so nothing of it is read.
 * Not a failure of the file: it is left in place, with no redelivery and no record, and its route's next listing
 * starts its wait to settle again.
 */
public class FileChangedSinceSettledException extends FileNotReadException {

    public FileChangedSinceSettledException(String file, FileState listed, FileState opened) {
        super("the file " + file + " changed since it was found settled (listed " + listed.size() + " bytes changed at "
                + java.time.Instant.ofEpochMilli(listed.modifiedMillis()) + ", opened " + opened.size()
                + " bytes changed at " + java.time.Instant.ofEpochMilli(opened.modifiedMillis())
                + "); it stays in place and is taken once it has settled again");
    }
}
