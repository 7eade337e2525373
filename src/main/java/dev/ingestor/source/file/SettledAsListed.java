package dev.ingestor.source.file;

import dev.ingestor.intake.FileState;
import dev.ingestor.intake.IntakeHeaders;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePropertyKey;
import org.apache.camel.Processor;
import org.apache.camel.component.file.GenericFile;
import org.springframework.stereotype.Component;

/**
 * The file-drop step that says, for intake, what a file its route found settled was listed as: its size and time of
 * change ({@link IntakeHeaders#SETTLED_AS}), from the poll's listing, kept by the route's filter ({@link
 * FilesPassedOn#listedAs}). Not the file's own figures: Camel reads them again once it has claimed the file, which may
 * be long after the listing (the claims before it wait, or the poll thread runs a file itself while the supplier's
 * threads are full). A file may wait for other files before intake opens it, and a supplier that paused longer than
 * {@code min-age} may write on meanwhile; intake then does not read it, and the route's next listing starts its wait
 * again. The first step on the supplier's threads. With a done file, or a {@code min-age} of 0 (Camel's read lock
 * looks at the file until it stops changing, after the listing), there is no settled listing to hold it to, and the
 * step does nothing.
 */
@Component(SettledAsListed.NAME)
public class SettledAsListed implements Processor {

    static final String NAME = "settledAsListed";

    @Override
    public void process(Exchange exchange) {
        if (exchange.getProperty(ExchangePropertyKey.FILE_EXCHANGE_FILE) instanceof GenericFile<?> file) {
            // the listing's own figures, which the filter found unchanged across polls min-age apart
            FileState listed = FilesPassedOn.listedAs(exchange.getFromEndpoint(), file);
            if (listed != null) {
                exchange.setProperty(IntakeHeaders.SETTLED_AS, listed);
            }
        }
    }
}
