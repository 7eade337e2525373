package dev.ingestor.source.file;

/**
 * A remote file whose download stopped moving: no byte came from the server for {@code ingestor.sftp.stall-timeout},
 * and {@link SftpStallWatchdog} disconnected the session. Nothing of what was read is kept and it is not downloaded
 * again at once (the session is gone, the server likely still hung): the file stays on the server and a later poll,
 * logged in anew, takes it (routes/error-handling.camel.yaml, file-source-errors, as for
 * {@link RemoteFileChangedException}).
 */
public class RemoteTransferStalledException extends Exception {

    RemoteTransferStalledException(String file, java.time.Duration limit, Throwable cause) {
        super("the download of the remote file " + file + " stalled: no byte came from the server for " + limit + " ("
                + SftpStallWatchdog.SETTING + "); it stays on the server and is taken again at a later poll", cause);
    }
}
