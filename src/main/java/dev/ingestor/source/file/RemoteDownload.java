package dev.ingestor.source.file;

import java.io.IOException;
import java.io.InputStream;

import dev.ingestor.intake.FileNameRule;
import dev.ingestor.intake.IntakeGate;
import dev.ingestor.intake.IntakeHeaders;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.component.file.GenericFileOperations;
import org.apache.camel.component.file.remote.RemoteFileEndpoint;
import org.apache.camel.component.file.remote.SftpRemoteFile;
import org.apache.camel.converter.stream.CachedOutputStream;
import org.springframework.stereotype.Component;

/**
 * An SFTP route's first step: the remote file downloaded once, bounded by its supplier's limit, into Camel's
 * stream cache (memory, spooled to disk past its threshold), which intake and its redeliveries read.
 * <ul>
 * <li>A file whose listed size is over the limit is not downloaded at all: intake's gate rejects it by that size.
 * Camel's own stream caching would have downloaded every file whole before the first step (application.yaml
 * keeps file bodies out of it), a supplier's 40 GB export included.</li>
 * <li>What was downloaded must be the file as the read lock left it, complete and before Camel opened it ({@link
 * #STATE}; the poll's listing when the server refused that look): as many bytes, and the file on the server still of
 * that size and time of change once the download ends. A supplier that uploads a file again in place while it is
 * downloaded would otherwise have half of one version and half of another taken as a file.
 * {@link RemoteFileChangedException}: nothing is kept, the file stays on the server.</li>
 * <li>A redelivery (intake failed after the download, the database away) opens the file again: the first
 * download's stream is spent.</li>
 * <li>A download during which no byte comes for {@code ingestor.sftp.stall-timeout} (a server whose SFTP side hangs
 * while its SSH connection lives) is ended by {@link SftpStallWatchdog}, which disconnects the session: {@link
 * RemoteTransferStalledException}, nothing is kept, the file stays on the server and the next poll logs in again. The
 * file opened again for a redelivery and the look at it afterwards are watched as well.</li>
 * </ul>
 * The session is the read lock's ({@link SftpClaimReadLock} keeps its operations on the exchange, {@link #OPERATIONS}).
 */
@Component("remoteDownload")
class RemoteDownload {

    /** Exchange property: the remote file operations of the session that listed and opened the file. */
    static final String OPERATIONS = "IngestorRemoteOperations";
    /** Exchange property: set once the file's stream has been read, so that a redelivery opens it again. */
    private static final String READ = "IngestorRemoteRead";
    /**
     * Exchange property: the file's size and time of change on the server once the read lock found it complete,
     * before Camel opened it: what the download and the move are judged against.
     */
    static final String STATE = "IngestorRemoteState";
    /** The state of a file that its name does not find on the server. */
    private static final String GONE = "gone";

    private final IntakeGate gate;
    private final SftpStallWatchdog watchdog;

    RemoteDownload(IntakeGate gate, SftpStallWatchdog watchdog) {
        this.gate = gate;
        this.watchdog = watchdog;
    }

    public void read(Exchange exchange) throws Exception {
        Message message = exchange.getMessage();
        String supplier = message.getHeader(IntakeHeaders.SUPPLIER, String.class);
        GenericFile<?> file = OutcomeMove.file(exchange);
        Long listed = message.getHeader(Exchange.FILE_LENGTH, Long.class);
        if (supplier == null || !gate.isSupplier(supplier) || listed != null && listed > gate.maxSize(supplier)) {
            return; // intake's gate rejects it, unread
        }
        GenericFileOperations<?> operations = exchange.getProperty(OPERATIONS, GenericFileOperations.class);
        String path = file.getAbsoluteFilePath();
        String printable = FileNameRule.printable(path);
        // a server that stops sending mid-file (a hung disk behind a live sshd) would hold the poll for ever
        SftpStallWatchdog.Watch watch = operations == null
                ? null
                : watchdog.watch(supplier, "the download of " + printable, operations);
        try {
            download(exchange, supplier, listed, operations, path, printable, watch);
            if (watch != null) {
                // closed first, so that the watchdog either abandoned the download before this, or never will
                watch.close();
                if (watch.abandoned()) {
                    // the session went under a read that then ended as if the file did
                    throw new RemoteTransferStalledException(printable, watchdog.limit(), null);
                }
            }
        } catch (Exception e) {
            if (watch != null) {
                // closed first here too: a download that failed on its own is not then abandoned as a stall
                watch.close();
            }
            if (watch != null && watch.abandoned() && !(e instanceof RemoteTransferStalledException)) {
                throw new RemoteTransferStalledException(printable, watchdog.limit(), e);
            }
            throw e;
        } finally {
            if (watch != null) {
                watch.close();
            }
        }
    }

    private void download(Exchange exchange, String supplier, Long listed, GenericFileOperations<?> operations,
            String path, String printable, SftpStallWatchdog.Watch watch) throws Exception {
        Message message = exchange.getMessage();
        if (exchange.getProperty(READ) != null && operations != null) {
            operations.retrieveFile(path, exchange, listed == null ? -1 : listed);
        }
        // the file as the read lock left it, before it was opened: the poll's listing may be older (a file listed
        // while it was still uploaded); a look taken now could see a file renamed over the one opened
        String before = exchange.getProperty(STATE, String.class);
        if (before == null) {
            before = listing(message);
        }
        exchange.setProperty(READ, true);
        if (GONE.equals(before)) {
            throw new RemoteFileChangedException(printable, "not found on the server by its name when it was taken");
        }
        long limit = gate.maxSize(supplier);
        CachedOutputStream cache = new CachedOutputStream(exchange);
        long size = 0;
        try (InputStream in = message.getMandatoryBody(InputStream.class)) {
            byte[] buffer = new byte[64 * 1024];
            int read;
            while ((read = in.read(buffer)) != -1) {
                if (watch != null) {
                    watch.progress();
                }
                size += read;
                if (size > limit) {
                    cache.close();
                    throw gate.tooLarge(supplier); // grew past its listing and the limit
                }
                cache.write(buffer, 0, read);
            }
        }
        // a server that leaves the size out of its listings says 0; a file it lists as empty is judged by its time
        long expected = sizeOf(before);
        if (expected > 0 && size != expected) {
            cache.close();
            throw new RemoteFileChangedException(printable, size + " bytes read where the server said " + expected);
        }
        String changed = changedSinceRead(exchange);
        if (changed != null) {
            cache.close();
            throw new RemoteFileChangedException(printable, changed);
        }
        message.setBody(cache.newStreamCache());
    }

    /**
     * Route step, the last of an SFTP route: with {@code sftp.after-pickup: delete}, the file on the server must still
     * be the one that was read (its size and time of change), else Camel does not delete it ({@link
     * RemoteFileChangedException#afterRead}, no redelivery, no record) and a later poll takes it as it is now. A
     * supplier that names each day's file the same would otherwise lose the next day's file, unread, to an instance
     * paused between its download and its delete for longer than the file's claim, while another instance took the
     * file over, deleted it, and the supplier put the next one there. A server that cannot be asked keeps the file
     * too: taken again, it is a duplicate, and deleted then. Judged as the move to {@code .done/} is ({@link
     * OutcomeMove#sftp}).
     */
    public void unchangedBeforeDelete(Exchange exchange) throws RemoteFileChangedException {
        if (!(exchange.getFromEndpoint() instanceof RemoteFileEndpoint<?> remote) || !remote.isDelete()) {
            return;
        }
        String changed;
        try {
            changed = changedSinceRead(exchange);
        } catch (IOException | RuntimeException e) {
            changed = "the server could not be asked: " + e.getMessage();
        }
        if (changed != null) {
            throw RemoteFileChangedException.afterRead(
                    FileNameRule.printable(OutcomeMove.file(exchange).getAbsoluteFilePath()), changed);
        }
    }

    /**
     * How the file of {@code exchange} on the server differs now from what was read (its size and time of change as
     * the download began, or as listed when it has not been read), or null when it does not, or when this exchange
     * has no session to ask.
     */
    static String changedSinceRead(Exchange exchange) throws IOException {
        GenericFileOperations<?> operations = exchange.getProperty(OPERATIONS, GenericFileOperations.class);
        if (operations == null) {
            return null;
        }
        String then = exchange.getProperty(STATE, String.class);
        if (then == null) {
            then = listing(exchange.getMessage());
        }
        String now = stateNow(operations, OutcomeMove.file(exchange).getAbsoluteFilePath());
        // a file its name does not find (gone, or a name the server reads as a pattern) is never judged unchanged
        return then.equals(now) && !GONE.equals(now) ? null : "was " + then + ", now " + now;
    }

    /**
     * Keeps how the file of {@code path} is on the server now, once the read lock found it complete and before Camel
     * opens it ({@link SftpClaimReadLock}). A server that refuses the look leaves the poll's listing as the reference.
     */
    static void remember(Exchange exchange, GenericFileOperations<?> operations, String path) {
        try {
            exchange.setProperty(STATE, stateNow(operations, path));
        } catch (RuntimeException e) {
            exchange.removeProperty(STATE);
        }
    }

    /**
     * How the file as {@link #remember} kept it differs from {@code file} as the poll's listing showed it, or null when
     * it does not, or when there is nothing kept to compare (the server refused the look: the download's own checks
     * then judge the file against the listing).
     */
    static String changedSinceListed(Exchange exchange, GenericFile<?> file) {
        String now = exchange.getProperty(STATE, String.class);
        String listed = state(file.getFileLength(), file.getLastModified());
        return now == null || now.equals(listed) ? null : "listed as " + listed + ", now " + now;
    }

    private static String listing(Message message) {
        return state(message.getHeader(Exchange.FILE_LENGTH, 0L, Long.class),
                message.getHeader(Exchange.FILE_LAST_MODIFIED, 0L, Long.class));
    }

    private static String stateNow(GenericFileOperations<?> operations, String path) {
        Object[] entries = operations.listFiles(path);
        return entries == null || entries.length != 1 || !(entries[0] instanceof SftpRemoteFile<?> entry)
                ? GONE
                : state(entry.getFileLength(), entry.getLastModified());
    }

    private static String state(long size, long modified) {
        return size + " bytes, changed at " + modified;
    }

    private static long sizeOf(String state) {
        return Long.parseLong(state.substring(0, state.indexOf(' ')));
    }
}
