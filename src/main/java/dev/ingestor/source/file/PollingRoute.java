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
     * Whether a poll that took {@code polledMessages} saw every entry of its folder: false when it reached the
     * endpoint's maxMessagesPerPoll, where Camel stops listing.
     */
    static boolean sawEverything(Endpoint endpoint, int polledMessages) {
        return !(endpoint instanceof GenericFileEndpoint<?> files)
                || files.getMaxMessagesPerPoll() <= 0 || polledMessages < files.getMaxMessagesPerPoll();
    }
}
