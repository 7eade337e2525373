package dev.ingestor.source.file;

import org.apache.camel.Consumer;
import org.apache.camel.Endpoint;
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
        FilesPassedOn.pollBegins(endpoint);
        return super.begin(consumer, endpoint);
    }

    @Override
    public void commit(Consumer consumer, Endpoint endpoint, int polledMessages) {
        refusals.endPoll(PollingRoute.id(consumer), FilesPassedOn.pollEnds(endpoint, polledMessages));
        super.commit(consumer, endpoint, polledMessages);
    }

    @Override
    public boolean rollback(Consumer consumer, Endpoint endpoint, int retryCounter, Exception e) throws Exception {
        refusals.abandonPoll();
        return super.rollback(consumer, endpoint, retryCounter, e);
    }
}
