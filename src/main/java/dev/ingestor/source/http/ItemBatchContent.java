package dev.ingestor.source.http;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;

import dev.ingestor.intake.IntakeHeaders;
import dev.ingestor.intake.RawStore;
import dev.ingestor.intake.ReceivedContent;
import org.apache.camel.Body;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangeProperty;
import org.springframework.stereotype.Component;

/**
 * An item batch's items as the content of its job, in the raw store like a file's bytes: received into the
 * working folder and hashed ({@link #receive}), then put in place inside the batch's transaction, under the
 * content key's lock ({@link #place}); {@link RawStore#discard} removes what was not put in place.
 */
@Component("itemBatchContent")
class ItemBatchContent {

    private final RawStore rawStore;

    ItemBatchContent(RawStore rawStore) {
        this.rawStore = rawStore;
    }

    /**
     * The items file (canonical JSON Lines) streamed into the raw store's working folder and hashed; the received
     * content is kept as the property {@link IntakeHeaders#RECEIVED} and its key as the header
     * {@link IntakeHeaders#KEY}, as intake keeps a file's.
     */
    public void receive(@Body ItemBatchRequest request, Exchange exchange) throws IOException {
        ReceivedContent received;
        try (InputStream lines = Files.newInputStream(request.items())) {
            received = rawStore.receive(lines, request.supplier(), null, null);
        }
        exchange.setProperty(IntakeHeaders.RECEIVED, received);
        exchange.getMessage().setHeader(IntakeHeaders.KEY, received.key());
    }

    /**
     * The received items put in place (unless a copy is there); the caller holds the content key's lock in the
     * transaction that creates the job referring to them, so retention cannot delete the file meanwhile.
     */
    public void place(@ExchangeProperty(IntakeHeaders.RECEIVED) ReceivedContent received) throws IOException {
        rawStore.place(received);
    }
}
