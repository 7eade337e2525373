package dev.ingestor.intake;

/**
 * A dropped file was no longer there when intake came to open it: another instance took it over (this one's claim
 * lapsed while it was paused, its file waiting in the supplier's queue) and answered it, or the supplier took it back.
 * Not a failure of the file, nor this instance's to answer: no redelivery, no record, no notice to the supplier, as
 * for a remote file its name no longer finds. A file there again under that name is taken by a later listing.
 */
public class FileGoneException extends FileNotReadException {

    public FileGoneException(String file) {
        super("the file " + file + " is gone since it was listed (taken by another instance, or taken back); nothing"
                + " of it was read");
    }
}
