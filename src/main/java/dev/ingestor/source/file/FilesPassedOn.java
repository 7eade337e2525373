package dev.ingestor.source.file;

import org.apache.camel.Endpoint;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.component.file.GenericFileEndpoint;

/**
 * The files a polling route's filter passed on in the poll under way and, with a {@code min-age}, which files have
 * settled ({@link SettledFiles}): one per route, held by the file-drop and SFTP filters ({@link RegularFilesOnly},
 * {@link RegularRemoteFilesOnly}) and told by their poll strategies when each poll begins and ends.
 * <p>
 * Whether a poll saw its whole folder is counted here, from the files passed on: Camel stops listing once they reach
 * the endpoint's {@code maxMessagesPerPoll}. Not from the files the poll processed: a file passed on that the read
 * lock then refuses (claimed elsewhere, changed since listed) is not processed, and a poll cut short would pass for a
 * whole one, forgetting the settling files past the cut.
 * <p>
 * Used from the route's poll thread only, as its filter and poll strategy are.
 */
final class FilesPassedOn {

    /** A filter that passes files on. */
    interface Filter {
        FilesPassedOn passedOn();
    }

    /** Null: a file is passed on at first sight (a done file says it is complete, or min-age is 0). */
    private final SettledFiles settled;
    private int count;

    FilesPassedOn(SettledFiles settled) {
        this.settled = settled;
    }

    /** Whether {@code file}, which the filter's own rules let through, is passed on: settled, or at first sight. */
    boolean pass(GenericFile<?> file) {
        boolean passes = settled == null
                || settled.settled(file.getRelativeFilePath(), file.getFileLength(), file.getLastModified());
        if (passes) {
            count++;
        }
        return passes;
    }

    /** Whether the poll under way saw every entry of its folder, under a limit of {@code maxMessagesPerPoll}. */
    boolean sawEverything(int maxMessagesPerPoll) {
        return maxMessagesPerPoll <= 0 || count < maxMessagesPerPoll;
    }

    void beginPoll() {
        count = 0;
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
        FilesPassedOn files = of(endpoint);
        if (files == null) {
            return PollingRoute.sawEverything(endpoint, polledMessages);
        }
        boolean sawEverything = files.sawEverything(((GenericFileEndpoint<?>) endpoint).getMaxMessagesPerPoll());
        files.endPoll(sawEverything);
        return sawEverything;
    }

    /** The files passed on by the filter of {@code endpoint}, or null for an endpoint without one of ours. */
    private static FilesPassedOn of(Endpoint endpoint) {
        return endpoint instanceof GenericFileEndpoint<?> files && files.getFilter() instanceof Filter filter
                ? filter.passedOn()
                : null;
    }
}
