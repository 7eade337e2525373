package dev.ingestor.source.file;

import java.util.function.Predicate;

import dev.ingestor.wakeup.PollsThroughErrors;
import org.apache.camel.component.file.GenericFileEndpoint;
import org.apache.camel.spi.PollingConsumerPollStrategy;
import org.apache.camel.support.ScheduledPollConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.annotation.Scope;
import org.springframework.stereotype.Component;

/**
 * The scheduler of the file-drop and SFTP routes: the routes' {@link PollsThroughErrors}, which polls on after an
 * {@link Error} (a stack overflow, memory run out in one listing or one of Camel's steps), with what a route that lists
 * files needs besides.
 * <p>
 * An Error bypasses the consumer's own backoff and error count, so it has a backoff of its own: after {@code n}
 * Errors in a row the next poll skips {@code 2^(n-1) - 1} turns, up to {@link #MOST_SKIPPED} (a listing that ran out
 * of memory is not listed again at once).
 * <p>
 * Camel lets go of the in-progress marks a poll set only after an exception. After an Error, the marks the failed
 * poll set on files no exchange is still taking are let go of here, when the route's marks are {@link
 * InProgressMarks}, so the next poll lists those files again:
 * <ul>
 * <li>SFTP (and any endpoint Camel runs synchronously): each file's exchange ends before the poll goes on to the
 * next, so after the Error none is under way, and every mark the poll set goes. A claim the Error left taken is
 * taken anew when the file is listed again, by {@link SftpClaimReadLock} (the SFTP routes' read lock).</li>
 * <li>A file drop hands its files to the supplier's threads, and says so for each on the poll thread just before
 * ({@link FileHandOff}). A file handed off may be queued or running there, and keeps its mark and claim until its
 * exchange is done. A file the poll listed and did not hand off is not under way: its mark goes, and so does the claim
 * the poll took for it ({@link FileClaimRepository}), where the Error came after the claim (the idempotent-changed
 * read lock claims, then waits up to its timeout for the file to stop changing). A claim taken before the poll is a
 * finished file's of the same name, held for its delayed release, and stays. Until the route's first hand-off it is
 * not known that the route says so: a file whose claim the poll took keeps its mark, and this instance skips that
 * name until a restart, and so do the other instances (the claim is renewed while this instance holds it).</li>
 * </ul>
 * <p>
 * A prototype, one per endpoint, named in the file-drop and SFTP templates by {@code scheduler:
 * "#filePollsThroughErrors"}.
 */
@Component(FilePollsThroughErrors.NAME)
@Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
public class FilePollsThroughErrors extends PollsThroughErrors {

    public static final String NAME = "filePollsThroughErrors";
    /** The most turns skipped after Errors in a row: 8 s at the file drop's 500 ms, 8 minutes at SFTP's 30 s. */
    static final int MOST_SKIPPED = 15;
    private static final Logger LOG = LoggerFactory.getLogger(FilePollsThroughErrors.class);

    /** The route's poll strategy: an SFTP route's is told of a poll an Error ended, which Camel does not tell it. */
    private PollingConsumerPollStrategy pollStrategy;
    /** The route's marks when they are {@link InProgressMarks}, else null. */
    private InProgressMarks marks;
    /**
     * Whether a file a failed poll listed and did not hand off may still be under way, by the path its mark names;
     * it lets go of the claim the poll took for a file that is not.
     */
    private Predicate<String> underWay;
    /** Claims let go of after the failed poll under way. */
    private int claimsLetGo;

    @Override
    protected void prepare(ScheduledPollConsumer polling) {
        pollStrategy = polling.getPollStrategy();
        marks = null;
        if (polling.getEndpoint() instanceof GenericFileEndpoint<?> files
                && files.getInProgressRepository() instanceof InProgressMarks own) {
            // one scheduler per set of marks: another's polls would mix theirs in
            own.belongTo(this);
            marks = own;
            underWay = mayBeUnderWay(files, own);
        }
    }

    @Override
    protected void pollStarts() {
        if (marks != null) {
            marks.pollStarts();
        }
    }

    @Override
    protected void pollEnded() {
        if (marks != null) {
            marks.pollEnds();
        }
    }

    @Override
    protected int turnsToSkip(int errorsInARow) {
        return (int) Math.min(MOST_SKIPPED, (1L << Math.min(errorsInARow - 1, 30)) - 1);
    }

    @Override
    protected void afterError(Error e, int errorsInARow, int toSkip) {
        if (pollStrategy instanceof SftpPollStrategy sftp) {
            sftp.endedByError(routeId());
        }
        if (marks == null) {
            LOG.error("a poll of route {} failed with {} ({} in a row); it polls again after {} more turn(s) of its"
                    + " delay", routeId(), e.toString(), errorsInARow, toSkip);
            return;
        }
        claimsLetGo = 0;
        int released = releaseMarks();
        LOG.error("a poll of route {} failed with {} ({} in a row); it polls again after {} more turn(s) of its delay;"
                + " {} file(s) it had listed are free again ({} claim(s) it had taken let go of)", routeId(),
                e.toString(), errorsInARow, toSkip, released, claimsLetGo);
    }

    /** The failed poll's marks let go of; none when that fails too, so this task is never ended by it. */
    private int releaseMarks() {
        try {
            return marks.releaseNotUnderWay(underWay);
        } catch (RuntimeException | Error e) {
            LOG.error("the marks of route {}'s failed poll could not be let go of: {}", routeId(), e.toString());
            return 0;
        }
    }

    /**
     * Whether a file of a failed poll, listed and not handed off, may still be under way: never on a synchronous
     * endpoint. On another with an idempotent read lock, while this instance holds a claim of it that this poll took,
     * until the route has said when it hands its files off ({@link FileHandOff}); from then on such a file is known
     * to have been stopped by the Error, and its claim is let go of with its mark. A claim taken before this poll is
     * a finished file's, held for its delayed release: this listing never began. With a read lock of another kind,
     * or files moved before they are taken (the hand-off would name them otherwise), every file may be under way, and
     * every mark stays.
     */
    private Predicate<String> mayBeUnderWay(GenericFileEndpoint<?> files, InProgressMarks own) {
        if (files.isSynchronous()) {
            return path -> false;
        }
        // Camel's idempotent read locks claim a file by its absolute path, the key of its in-progress mark, unless the
        // endpoint names another key
        if (files.getReadLock() == null || !files.getReadLock().startsWith("idempotent")
                || !(files.getIdempotentRepository() instanceof FileClaimRepository claims)
                || files.getIdempotentKey() != null) {
            return path -> true;
        }
        boolean handOffsNameTheMark = files.getPreMove() == null;
        return path -> {
            if (!claims.holdsSince(path, own.pollStartedAt())) {
                return false;
            }
            if (!handOffsNameTheMark || !own.recordsHandOffs()) {
                return true;
            }
            letGoOfClaim(claims, path);
            return false;
        };
    }

    /**
     * Lets go of a claim the failed poll took and never handed off. A failed delete leaves a row this run takes over
     * at its next claim of the file (the hold goes either way), and does not keep the other marks from going.
     */
    private void letGoOfClaim(FileClaimRepository claims, String path) {
        try {
            claims.release(path);
            claimsLetGo++;
        } catch (RuntimeException | Error e) {
            LOG.warn("route {} let go of its hold on the claim of {}, but the claim's row stays until this instance"
                    + " claims the file again or its lease ends: {}", routeId(), path, e.toString());
        }
    }
}
