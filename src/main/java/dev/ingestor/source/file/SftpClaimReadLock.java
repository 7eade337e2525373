package dev.ingestor.source.file;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import com.jcraft.jsch.ChannelSftp;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.LoggingLevel;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.component.file.GenericFileEndpoint;
import org.apache.camel.component.file.GenericFileExclusiveReadLockStrategy;
import org.apache.camel.component.file.GenericFileOperations;
import org.apache.camel.component.file.remote.RemoteFileEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The read lock of an SFTP route: a claim on the remote file in PostgreSQL ({@link FileClaimRepository}), so
 * two instances polling one server never both take a file. Whether a file is complete was decided before: by its
 * done file, or (with a {@code min-age}) by the route's filter, which passes on only files that have settled across
 * polls by this instance's clock ({@link RegularRemoteFilesOnly}, {@link SettledFiles}). No look here waits for a file
 * to stop changing, so no file holds the poll thread. In that min-age mode a file whose size or time of change on the
 * server is no longer the listing's when it is taken is refused: it changed after it was found settled (the poll
 * took other files in between), and its next listing starts its wait again.
 *
 * <p>Camel's sftp component offers only the none, rename and changed read locks (its idempotent ones are for
 * local files), hence this class. The claim key names the server, the account and the path: two suppliers on one
 * server whose accounts see folders of the same name (chrooted, or under their own home folders) hold different
 * files. A finished file's claim is let go after a delay: Camel releases the lock right after it moves the file,
 * and a peer that listed the folder before the move must still find the file claimed. Camel aborts a file whose
 * lock was refused as it does one whose lock was taken; only the exchange that took a claim lets go of it there.
 * A download that fails after the lock ends with no release at all; the route's next listing of that file lets go
 * of the claim and takes it again (Camel lists no file it still has in progress), within the claims' lease.
 */
class SftpClaimReadLock implements GenericFileExclusiveReadLockStrategy<ChannelSftp.LsEntry> {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.sftp");
    private static final String SCHEME = "sftp://";

    private final FileClaimRepository claims;
    /**
     * The claims this route took whose exchange has not let go of them (by commit, rollback or abort), with when
     * ({@link System#nanoTime}). Forgotten once taken longer ago than the claims' lease, at this route's next take: a
     * file whose download failed and that then went (taken by another instance, deleted by the supplier) is not kept.
     * Until then the repository renews its claim while this route runs; its row then lapses after another lease.
     */
    private final Map<String, Long> open = new ConcurrentHashMap<>();
    private final ScheduledExecutorService releases;
    private final long releaseDelayMillis;
    /** Whether a file must still be as the poll's listing showed it when it is taken (min-age mode). */
    private final boolean asListed;
    /** Told that the poll's listing is over when its first file is taken; null: no listing is watched. */
    private final SftpStallWatchdog watchdog;

    public SftpClaimReadLock(FileClaimRepository claims, ScheduledExecutorService releases, long releaseDelayMillis,
            boolean asListed) {
        this(claims, releases, releaseDelayMillis, asListed, null);
    }

    public SftpClaimReadLock(FileClaimRepository claims, ScheduledExecutorService releases, long releaseDelayMillis,
            boolean asListed, SftpStallWatchdog watchdog) {
        this.claims = claims;
        this.releases = releases;
        this.releaseDelayMillis = releaseDelayMillis;
        this.asListed = asListed;
        this.watchdog = watchdog;
    }

    /** The claim's key: {@code sftp://<account>@<host>:<port>/<folder> <the file's path>}. */
    static String key(GenericFile<ChannelSftp.LsEntry> file, Exchange exchange) {
        Endpoint from = exchange.getFromEndpoint();
        String server = from != null ? from.getEndpointBaseUri() : "sftp:";
        int query = server.indexOf('?');
        server = query < 0 ? server : server.substring(0, query);
        String account = from instanceof RemoteFileEndpoint<?> remote ? remote.getConfiguration().getUsername() : null;
        if (account != null && server.startsWith(SCHEME)) {
            server = SCHEME + account + "@" + server.substring(SCHEME.length());
        }
        return server + " " + file.getAbsoluteFilePath();
    }

    /** How many claims this route holds open: taken, and not let go of by their exchange. */
    int openClaims() {
        return open.size();
    }

    @Override
    public void prepareOnStartup(GenericFileOperations<ChannelSftp.LsEntry> operations,
            GenericFileEndpoint<ChannelSftp.LsEntry> endpoint) {
        // nothing on the server to prepare
    }

    @Override
    public boolean acquireExclusiveReadLock(GenericFileOperations<ChannelSftp.LsEntry> operations,
            GenericFile<ChannelSftp.LsEntry> file, Exchange exchange) throws Exception {
        if (watchdog != null && exchange.getFromRouteId() != null) {
            // the listing is over; what follows is watched as a download (RemoteDownload)
            watchdog.listed(exchange.getFromRouteId());
        }
        String key = key(file, exchange);
        if (RegularRemoteFilesOnly.isLink(file)) {
            // the route's filter refuses and reports links before they count against the poll's limit; this keeps a
            // link untaken should a route be written without that filter
            LOG.debug("{} is a symbolic link; not taken", key);
            return false;
        }
        if (RegularRemoteFilesOnly.patternName(file.getFileNameOnly()) != null) {
            // likewise for a name the SFTP client would read as a pattern: its delete could remove other files
            LOG.debug("{} has a name the SFTP client reads as a pattern; not taken", key);
            return false;
        }
        long now = System.nanoTime();
        long lease = claims.lease().toNanos();
        open.entrySet().removeIf(taken -> {
            boolean expired = now - taken.getValue() > lease;
            if (expired) {
                claims.forgetExpired(taken.getKey());
            }
            return expired;
        });
        if (open.remove(key) != null) {
            // listed again, so the exchange that took it is over without letting go: its download failed
            LOG.debug("{} is listed again after a download that did not finish; its claim is taken anew", key);
            claims.release(key);
        }
        if (!claims.add(exchange, key)) {
            LOG.debug("{} is claimed by another instance", key);
            return false;
        }
        boolean complete = false;
        try {
            // the session that listed the file, for the download's and the move's look at it, and the file as it
            // is now, before Camel opens it (RemoteDownload)
            exchange.setProperty(RemoteDownload.OPERATIONS, operations);
            RemoteDownload.remember(exchange, operations, file.getAbsoluteFilePath());
            String changed = asListed ? RemoteDownload.changedSinceListed(exchange, file) : null;
            if (changed != null) {
                LOG.debug("{} changed since it was listed settled ({}); not taken, its wait starts again", key,
                        changed);
            }
            complete = changed == null;
        } finally {
            if (complete) {
                // taken after the claims' own hold: never forgotten here before the repository lets it go
                open.put(key, System.nanoTime());
            } else {
                exchange.removeProperty(RemoteDownload.OPERATIONS);
                claims.remove(exchange, key);
            }
        }
        return complete;
    }

    @Override
    public void releaseExclusiveReadLockOnAbort(GenericFileOperations<ChannelSftp.LsEntry> operations,
            GenericFile<ChannelSftp.LsEntry> file, Exchange exchange) {
        // after a refused lock too: the claim is then another's (another instance's, or still this route's for a
        // file finished moments ago, its release delayed), and stays
        String key = key(file, exchange);
        if (claims.took(exchange, key)) {
            open.remove(key);
            claims.remove(exchange, key);
        }
    }

    @Override
    public void releaseExclusiveReadLockOnRollback(GenericFileOperations<ChannelSftp.LsEntry> operations,
            GenericFile<ChannelSftp.LsEntry> file, Exchange exchange) {
        // the file stays where it is and is tried again at a later poll, by any instance
        String key = key(file, exchange);
        open.remove(key);
        claims.remove(exchange, key);
    }

    @Override
    public void releaseExclusiveReadLockOnCommit(GenericFileOperations<ChannelSftp.LsEntry> operations,
            GenericFile<ChannelSftp.LsEntry> file, Exchange exchange) {
        String key = key(file, exchange);
        open.remove(key);
        releases.schedule(() -> {
            try {
                // only this exchange's take: not a later one of the same key
                claims.remove(exchange, key);
            } catch (RuntimeException e) {
                // this instance takes the claim again at its next poll; the others, after the claim's lease
                LOG.warn("cannot release claim {}: {}", key, e.getMessage());
            }
        }, releaseDelayMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void setTimeout(long timeout) {
        // no look here waits
    }

    @Override
    public void setCheckInterval(long checkInterval) {
        // no look here waits
    }

    @Override
    public void setReadLockLoggingLevel(LoggingLevel level) {
        // logs at DEBUG only
    }

    @Override
    public void setMarkerFiler(boolean markerFile) {
        // no marker files on the supplier's server
    }

    @Override
    public void setDeleteOrphanLockFiles(boolean deleteOrphanLockFiles) {
        // no marker files on the supplier's server
    }
}
