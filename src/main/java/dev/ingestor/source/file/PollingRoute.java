package dev.ingestor.source.file;

import org.apache.camel.Consumer;
import org.apache.camel.Endpoint;
import org.apache.camel.component.file.GenericFileEndpoint;
import org.apache.camel.spi.RouteIdAware;

/** What a poll strategy knows of the poll that ends: the route it belongs to, and whether it saw everything. */
final class PollingRoute {

    private PollingRoute() {
    }

    /** The id of the consumer's route. */
    static String id(Consumer consumer) {
        if (consumer instanceof RouteIdAware aware && aware.getRouteId() != null) {
            return aware.getRouteId();
        }
        return String.valueOf(System.identityHashCode(consumer));
    }

    /**
     * Whether a poll that took {@code polledMessages} saw every entry of its folder: false when the files its listing
     * gathered reached the endpoint's maxMessagesPerPoll, where Camel stops listing. Counted by the route's marks
     * ({@link InProgressMarks}) where it has ours: a file gathered that the read lock then refuses (claimed elsewhere,
     * changed since listed) is not taken, and a poll cut short would pass for a whole one. Not by the files the filter
     * let through: Camel leaves some of them (done files, files whose done file has not come, files still in progress
     * from an earlier poll), and a whole poll would pass for a cut one.
     */
    static boolean sawEverything(Endpoint endpoint, int polledMessages) {
        if (!(endpoint instanceof GenericFileEndpoint<?> files) || files.getMaxMessagesPerPoll() <= 0) {
            return true;
        }
        int listed = files.getInProgressRepository() instanceof InProgressMarks marks && marks.listedThisPoll() >= 0
                ? marks.listedThisPoll()
                : polledMessages;
        return listed < files.getMaxMessagesPerPoll();
    }
}
