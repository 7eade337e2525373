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
 * <li>What was downloaded must be the file the listing showed: as many bytes, and the file on the server still of
 * the listed size and time of change once the download ends. A supplier that uploads a file again in place while
 * it is downloaded would otherwise have half of one version and half of another taken as a file.
 * {@link RemoteFileChangedException}: nothing is kept, the file stays on the server.</li>
 * <li>A redelivery (intake failed after the download, the database away) opens the file again: the first
 * download's stream is spent.</li>
 * </ul>
 * The listing and the session are those of the read lock ({@link SftpClaimReadLock} keeps the session's operations on
 * the exchange, {@link #OPERATIONS}).
 */
@Component("remoteDownload")
class RemoteDownload {

    /** Exchange property: the remote file operations of the session that listed and opened the file. */
    static final String OPERATIONS = "IngestorRemoteOperations";
    /** Exchange property: set once the file's stream has been read, so that a redelivery opens it again. */
    private static final String READ = "IngestorRemoteRead";

    private final IntakeGate gate;

    RemoteDownload(IntakeGate gate) {
        this.gate = gate;
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
        if (exchange.getProperty(READ) != null && operations != null) {
            operations.retrieveFile(path, exchange, listed == null ? -1 : listed);
        }
        exchange.setProperty(READ, true);
        long limit = gate.maxSize(supplier);
        CachedOutputStream cache = new CachedOutputStream(exchange);
        long size = 0;
        try (InputStream in = message.getMandatoryBody(InputStream.class)) {
            byte[] buffer = new byte[64 * 1024];
            int read;
            while ((read = in.read(buffer)) != -1) {
                size += read;
                if (size > limit) {
                    cache.close();
                    throw gate.tooLarge(supplier); // grew past its listing and the limit
                }
                cache.write(buffer, 0, read);
            }
        }
        String printable = FileNameRule.printable(path);
        if (listed != null && size != listed) {
            cache.close();
            throw new RemoteFileChangedException(printable, size + " bytes read where the listing said " + listed);
        }
        String changed = changedSinceListed(exchange);
        if (changed != null) {
            cache.close();
            throw new RemoteFileChangedException(printable, changed);
        }
        message.setBody(cache.newStreamCache());
    }

    /**
     * How the file of {@code exchange} on the server differs now from its listing (size, time of change, gone), or
     * null when it does not, or when this exchange has no session to ask.
     */
    static String changedSinceListed(Exchange exchange) throws IOException {
        GenericFileOperations<?> operations = exchange.getProperty(OPERATIONS, GenericFileOperations.class);
        if (operations == null) {
            return null;
        }
        Message message = exchange.getMessage();
        String listed = message.getHeader(Exchange.FILE_LENGTH, Long.class) + " bytes, changed at "
                + message.getHeader(Exchange.FILE_LAST_MODIFIED, Long.class);
        Object[] entries = operations.listFiles(OutcomeMove.file(exchange).getAbsoluteFilePath());
        String now = entries == null || entries.length != 1 || !(entries[0] instanceof SftpRemoteFile<?> entry)
                ? "gone"
                : entry.getFileLength() + " bytes, changed at " + entry.getLastModified();
        return listed.equals(now) ? null : "listed as " + listed + ", now " + now;
    }
}
