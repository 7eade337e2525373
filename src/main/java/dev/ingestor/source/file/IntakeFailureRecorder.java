package dev.ingestor.source.file;

import java.io.File;
import java.nio.file.Path;

import dev.ingestor.intake.FileNameRule;
import dev.ingestor.intake.IntakeFailureLog;
import dev.ingestor.intake.IntakeFailureStore.Arrival;
import dev.ingestor.intake.IntakeHeaders;
import dev.ingestor.intake.RejectedDropException;
import dev.ingestor.logging.SafeText;
import org.apache.camel.Endpoint;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.component.file.GenericFileEndpoint;
import org.apache.camel.component.file.remote.RemoteFileEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Records a file source's arrival that did not become a job, where the route decides it (file-source-errors):
 * rejected (final; the file goes to {@code .rejected/}, or is deleted by an SFTP route that deletes after pickup)
 * or failed (a transient failure outlasted the redelivery policy; a dropped file goes to {@code .failed/}, a
 * remote file stays where it is and the next poll tries it again). The row names where the file is now.
 */
@Component("intakeFailureRecorder")
class IntakeFailureRecorder {

    private static final Logger LOG = LoggerFactory.getLogger(IntakeFailureRecorder.class);

    private final IntakeFailureLog failures;
    private final OutcomeMove moves;

    public IntakeFailureRecorder(IntakeFailureLog failures, OutcomeMove moves) {
        this.failures = failures;
        this.moves = moves;
    }

    public void rejected(Exchange exchange) {
        Exception cause = cause(exchange);
        String reason = cause instanceof RejectedDropException rejected ? rejected.reason() : message(cause);
        record(exchange, "rejected", reason);
    }

    public void failed(Exchange exchange) {
        record(exchange, "failed", message(cause(exchange)));
    }

    /** Inside an onException the failure has moved from the exchange to the caught-exception property. */
    private static Exception cause(Exchange exchange) {
        return exchange.getException() != null
                ? exchange.getException()
                : exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Exception.class);
    }

    private void record(Exchange exchange, String outcome, String reason) {
        Message message = exchange.getMessage();
        try {
            Arrival arrival = new Arrival(message.getHeader(IntakeHeaders.SUPPLIER, String.class),
                    message.getHeader(IntakeHeaders.SOURCE, String.class),
                    message.getHeader(IntakeHeaders.FILE_NAME, String.class),
                    message.getHeader(Exchange.FILE_LENGTH, Long.class), outcome, reason, location(exchange, outcome));
            failures.record(arrival);
        } catch (RuntimeException e) {
            // the record is for people; the file's own outcome (its move) must happen whatever becomes of it
            LOG.error("could not record the intake {} of supplier={} file={}: {}", outcome,
                    SafeText.of(message.getHeader(IntakeHeaders.SUPPLIER, String.class)),
                    FileNameRule.printable(message.getHeader(IntakeHeaders.FILE_NAME, String.class)),
                    SafeText.of(e.toString()));
        }
    }

    /** Where the file is once the route has answered it; null when it is not kept. */
    private String location(Exchange exchange, String outcome) {
        GenericFile<?> file = OutcomeMove.file(exchange);
        Endpoint endpoint = exchange.getFromEndpoint();
        if (endpoint instanceof RemoteFileEndpoint<?> remote) {
            String server = "sftp://" + remote.getConfiguration().getHost() + ":" + remote.getConfiguration().getPort();
            String path = file.getAbsoluteFilePath();
            String absolute = path.startsWith("/") ? path : "/" + path;
            if ("failed".equals(outcome)) {
                return server + absolute;
            }
            if (remote.isDelete()) {
                return null;
            }
            return server + absolute.substring(0, absolute.lastIndexOf('/') + 1) + moves.planned(exchange, outcome);
        }
        if (endpoint instanceof GenericFileEndpoint<?> && file.getFile() instanceof File local) {
            Path folder = local.toPath().toAbsolutePath().getParent();
            return folder.resolve(moves.planned(exchange, outcome)).toString();
        }
        return null;
    }

    private static String message(Throwable cause) {
        if (cause == null) {
            return "unknown";
        }
        // the deepest cause says what went wrong (the connection refused, the disk full); the outer ones where
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == cause ? cause.toString() : cause.getClass().getName() + ": " + root;
    }
}
