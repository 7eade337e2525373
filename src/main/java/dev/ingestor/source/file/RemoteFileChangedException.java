package dev.ingestor.source.file;

/**
 * A remote file that was not, when it was downloaded, the file the listing showed: its supplier writes it again in
 * place or appends to it, or the download ended early. What was read may be half of one version and half of
 * another, so nothing of it is kept, and it is not downloaded again at once: the file stays on the server and a
 * later poll takes it once it has stopped changing (routes/error-handling.camel.yaml, file-source-errors).
 */
public class RemoteFileChangedException extends Exception {

    RemoteFileChangedException(String file, String what) {
        super("the remote file " + file + " changed while it was downloaded (" + what
                + "); it stays on the server and is taken again at a later poll");
    }

    private RemoteFileChangedException(String message) {
        super(message);
    }

    /**
     * A file whose route deletes it after pickup that is not, once intake is done, the file that was read: written
     * again, or another file put there under its name (another instance took this one over while this instance was
     * paused, and deleted it). It is not deleted, and a later poll takes it as it is now.
     */
    static RemoteFileChangedException afterRead(String file, String what) {
        return new RemoteFileChangedException("the remote file " + file + " changed after it was read (" + what
                + "); it is not deleted, and is taken again at a later poll");
    }
}
