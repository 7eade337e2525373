package dev.ingestor.source.file;

import org.apache.camel.Consumer;
import org.apache.camel.Endpoint;
import org.apache.camel.component.file.GenericFileEndpoint;
import org.apache.camel.support.DefaultPollingConsumerPollStrategy;
import org.springframework.stereotype.Component;

/**
 * The poll strategy of the file-drop routes: Camel's default (a failed poll is logged and tried again at the
 * next), and the links a poll refused reported when it ends ({@link LinkRefusals}). The route's filter is told when
 * a poll begins and ends ({@link RegularFilesOnly}), so that it judges which files have settled across polls and
 * forgets the files that went away.
 */
@Component("fileDropPollStrategy")
class FileDropPollStrategy extends DefaultPollingConsumerPollStrategy {

    private final LinkRefusals refusals;

    public FileDropPollStrategy(LinkRefusals refusals) {
        this.refusals = refusals;
    }

    @Override
    public boolean begin(Consumer consumer, Endpoint endpoint) {
        refusals.beginPoll();
        RegularFilesOnly filter = filterOf(endpoint);
        if (filter != null) {
            filter.beginPoll();
        }
        return super.begin(consumer, endpoint);
    }

    @Override
    public void commit(Consumer consumer, Endpoint endpoint, int polledMessages) {
        RegularFilesOnly filter = filterOf(endpoint);
        // the route's filter counts what it passed on; files processed leave out those the read lock refused
        boolean sawEverything = filter != null
                ? filter.sawEverything(((GenericFileEndpoint<?>) endpoint).getMaxMessagesPerPoll())
                : PollingRoute.sawEverything(endpoint, polledMessages);
        refusals.endPoll(PollingRoute.id(consumer), sawEverything);
        if (filter != null) {
            filter.endPoll(sawEverything);
        }
        super.commit(consumer, endpoint, polledMessages);
    }

    @Override
    public boolean rollback(Consumer consumer, Endpoint endpoint, int retryCounter, Exception e) throws Exception {
        refusals.abandonPoll();
        return super.rollback(consumer, endpoint, retryCounter, e);
    }

    /** The route's filter, or null for an endpoint without one of ours. */
    private static RegularFilesOnly filterOf(Endpoint endpoint) {
        return endpoint instanceof GenericFileEndpoint<?> files
                && files.getFilter() instanceof RegularFilesOnly filter ? filter : null;
    }
}
