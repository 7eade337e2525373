package dev.ingestor.intake;

import java.util.ArrayList;
import java.util.List;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.SupplierProperties;
import dev.ingestor.job.ImportJob;
import dev.ingestor.metrics.IngestorMetrics;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The intake route's last step: the outcome and job as exchange properties (the sources move or answer by
 * them), the intake counter, and the one INFO line per arrival that operators read. One plain Java step: route
 * steps evaluating Simple expressions over the result by reflection cost about a tenth of the CPU of a small
 * file.
 */
@Component("intakeOutcomeRecorder")
class IntakeOutcomeRecorder {

    /** The logger operators filter on, the same name the HTTP route's log step of a known push writes under. */
    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.intake");

    private final IngestorMetrics metrics;

    public IntakeOutcomeRecorder(IngestorMetrics metrics, IngestorProperties properties) {
        this.metrics = metrics;
        // the outcomes the intake alert watches, counted from 0 for every way a configured supplier's files come,
        // so that it sees the first one after a start (IngestorMetrics#intakeFromZero)
        properties.getSuppliers().forEach((code, supplier) -> sourcesOf(supplier).forEach(
                source -> List.of("failed", "rejected").forEach(
                        outcome -> metrics.intakeFromZero(code, source, outcome))));
    }

    private static List<String> sourcesOf(SupplierProperties supplier) {
        List<String> sources = new ArrayList<>(List.of("http"));
        if (supplier.getFileDrop().isEnabled()) {
            sources.add("file-drop");
        }
        if (supplier.getSftp().isEnabled()) {
            sources.add("sftp");
        }
        return sources;
    }

    public void record(Exchange exchange) {
        Message message = exchange.getMessage();
        IntakeResult result = message.getBody(IntakeResult.class);
        ImportJob job = result.job();
        exchange.setProperty(IntakeHeaders.OUTCOME, result.outcome());
        exchange.setProperty(IntakeHeaders.JOB_ID, job.id());
        count(exchange);
        if (LOG.isInfoEnabled()) {
            LOG.info(line(result, message));
        }
    }

    /**
     * The intake counter for this arrival, by the headers IngestorSupplier and IngestorSource and the property
     * IngestorOutcome; also the refusal and failure paths of routes/error-handling.camel.yaml count here.
     */
    public void count(Exchange exchange) {
        Message message = exchange.getMessage();
        metrics.intake(message.getHeader(IntakeHeaders.SUPPLIER, String.class),
                message.getHeader(IntakeHeaders.SOURCE, String.class),
                exchange.getProperty(IntakeHeaders.OUTCOME, String.class));
    }

    /** The same text as the HTTP route's log step of a known push; a missing value is empty, as Simple renders it. */
    static String line(IntakeResult result, Message message) {
        ImportJob job = result.job();
        return "intake " + result.outcome()
                + " supplier=" + text(message.getHeader(IntakeHeaders.SUPPLIER))
                + " job=" + text(job.id())
                + " key=" + text(message.getHeader(IntakeHeaders.KEY))
                + " source=" + text(message.getHeader(IntakeHeaders.SOURCE))
                + " file=" + text(message.getHeader(IntakeHeaders.FILE_NAME))
                + " size=" + job.size();
    }

    private static String text(Object value) {
        return value == null ? "" : value.toString();
    }
}
