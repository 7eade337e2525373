package dev.ingestor.source.file;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

import dev.ingestor.intake.FileState;
import org.apache.camel.Endpoint;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.component.file.GenericFileEndpoint;

/**
 * Which files a polling route's filter passes on: with a {@code min-age}, those that have settled ({@link
 * SettledFiles}); otherwise every file at first sight. One per route, held by the file-drop and SFTP filters ({@link
 * RegularFilesOnly}, {@link RegularRemoteFilesOnly}) and told by their poll strategies when each poll begins and ends,
 * and whether it saw its whole folder ({@link PollingRoute#sawEverything}), so that a poll cut at its limit does not
 * forget the settling files past the cut.
 * <p>
 * Used from the route's poll thread only, as its filter and poll strategy are; but for {@link #listedAs}, which the
 * route's {@link SettledAsListed} reads on the supplier's threads.
 */
final class FilesPassedOn {

    /** A filter that passes files on. */
    interface Filter {
        FilesPassedOn passedOn();
    }

    /** Null: a file is passed on at first sight (a done file says it is complete, or min-age is 0). */
    private final SettledFiles settled;
    /**
     * The size and time of change of each settled file passed on, as the listing found them, by the listed file
     * itself (Camel's {@link GenericFile}, compared as itself), until {@link SettledAsListed} reads them. Camel reads
     * a file's size and time of change again once it has claimed it, later than the listing; weak, so a file passed
     * on and never taken (claimed elsewhere, past the poll's limit, in progress already) is not kept.
     */
    private final Map<GenericFile<?>, FileState> listed;

    /**
     * {@code keepsListing}: the settled files' listed figures are kept for {@link #listedAs} (the file drops; an SFTP
     * route's read lock holds its files to the listing itself, before Camel looks again).
     */
    FilesPassedOn(SettledFiles settled, boolean keepsListing) {
        this.settled = settled;
        this.listed = keepsListing ? Collections.synchronizedMap(new WeakHashMap<>()) : null;
    }

    /** Whether {@code file}, which the filter's own rules let through, is passed on: settled, or at first sight. */
    boolean pass(GenericFile<?> file) {
        if (settled == null) {
            return true;
        }
        long size = file.getFileLength();
        long modified = file.getLastModified();
        if (!settled.settled(file.getRelativeFilePath(), size, modified)) {
            return false;
        }
        if (listed != null) {
            listed.put(file, new FileState(size, modified, null));
        }
        return true;
    }

    /**
     * The size and time of change {@code file}, passed on by the filter of {@code endpoint} once it had settled, was
     * listed with, once; null for a file passed on at first sight, or asked for again.
     */
    static FileState listedAs(Endpoint endpoint, GenericFile<?> file) {
        FilesPassedOn files = of(endpoint);
        return files == null || files.listed == null ? null : files.listed.remove(file);
    }

    void beginPoll() {
        if (settled != null) {
            settled.beginPoll();
        }
    }

    /** The poll ended without failing; {@code complete}: it saw every entry of the folder. */
    void endPoll(boolean complete) {
        if (settled != null) {
            settled.endPoll(complete);
        }
    }

    /** For a poll strategy: a poll of {@code endpoint} begins. */
    static void pollBegins(Endpoint endpoint) {
        FilesPassedOn files = of(endpoint);
        if (files != null) {
            files.beginPoll();
        }
    }

    /**
     * For a poll strategy: a poll of {@code endpoint} that processed {@code polledMessages} ended without failing;
     * whether it saw every entry of its folder.
     */
    static boolean pollEnds(Endpoint endpoint, int polledMessages) {
        boolean sawEverything = PollingRoute.sawEverything(endpoint, polledMessages);
        FilesPassedOn files = of(endpoint);
        if (files != null) {
            files.endPoll(sawEverything);
        }
        return sawEverything;
    }

    /** What the filter of {@code endpoint} passes on, or null for an endpoint without a filter of ours. */
    private static FilesPassedOn of(Endpoint endpoint) {
        return endpoint instanceof GenericFileEndpoint<?> files && files.getFilter() instanceof Filter filter
                ? filter.passedOn()
                : null;
    }
}
