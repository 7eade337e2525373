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
}
