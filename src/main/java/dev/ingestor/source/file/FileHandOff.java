package dev.ingestor.source.file;

import org.apache.camel.Exchange;
import org.apache.camel.ExchangePropertyKey;
import org.apache.camel.Processor;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.component.file.GenericFileEndpoint;
import org.springframework.stereotype.Component;

/**
 * The step just before a file route hands its file to other threads (the file drop's {@code threads}): it tells the
 * route's {@link InProgressMarks} that the file goes on. It runs on the poll thread, so when a poll fails with an
 * {@link Error}, a file it had listed and that never passed here is known not to be under way, and
 * {@link FilePollsThroughErrors} lets go of its mark and of the claim the poll took for it: the next poll takes it
 * again. A file that passed here keeps both until its exchange is done (an {@link Error} that ends the exchange
 * outside a bean step, on a pool thread or on the poll thread when the pool is full and the poll thread runs it,
 * leaves both: the file is then no instance's until this one restarts, for it renews the claims it holds). With
 * marks of another kind, or on a synchronous route (where {@link FilePollsThroughErrors} lets go of every mark of a
 * failed poll), a step that does nothing.
 */
@Component(FileHandOff.NAME)
public class FileHandOff implements Processor {

    static final String NAME = "fileHandOff";

    @Override
    public void process(Exchange exchange) {
        if (exchange.getFromEndpoint() instanceof GenericFileEndpoint<?> files && !files.isSynchronous()
                && files.getInProgressRepository() instanceof InProgressMarks marks
                && exchange.getProperty(ExchangePropertyKey.FILE_EXCHANGE_FILE) instanceof GenericFile<?> file) {
            // the key Camel marked the file by, its absolute path when listed (the routes move no file before)
            marks.handedOff(file.getAbsoluteFilePath());
        }
    }
}
