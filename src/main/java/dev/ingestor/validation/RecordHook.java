package dev.ingestor.validation;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.failure.TransientFailures;
import dev.ingestor.intake.IntakeHeaders;
import dev.ingestor.logging.SafeText;
import org.apache.camel.Exchange;
import org.apache.camel.ExchangePattern;
import org.apache.camel.ProducerTemplate;
import org.apache.camel.component.direct.DirectConsumerNotAvailableException;

/**
 * Sends one record's fields to a supplier's hook route and takes back the fields it returns. Anything the hook does
 * wrong (throws, returns something that is not a map) becomes a broken record, which validation quarantines with
 * this reason. A failure that passes (the hook's route away, what it calls out to unreachable: {@link
 * TransientFailures#isConnectionLoss}) is no verdict on the record: it throws {@link HookFailedForNowException}, and
 * the stage tries the job again.
 */
final class RecordHook {

    /** The hook's message in a reason is cut here: a reason is stored and shown, a stack of text is not. */
    static final int MAX_MESSAGE = 300;
    /**
     * Header of the record sent to the hook: its line in its file (-1 for an item of an HTTP batch); with
     * {@link IntakeHeaders#SUPPLIER} and {@link IntakeHeaders#JOB_ID}.
     */
    static final String LINE = "IngestorLine";

    private final ProducerTemplate producer;
    private final String uri;
    private final String supplier;
    private final UUID jobId;
    private final String name;

    RecordHook(ProducerTemplate producer, String uri, String supplier, UUID jobId) {
        this.producer = producer;
        this.uri = uri;
        this.supplier = supplier;
        this.jobId = jobId;
        this.name = uri.substring("direct:".length());
    }

    RawRecord apply(RawRecord record) {
        if (record.isBroken()) {
            return record;
        }
        Exchange result = producer.send(uri, ExchangePattern.InOut, exchange -> {
            exchange.getMessage().setBody(new LinkedHashMap<>(record.fields()));
            exchange.getMessage().setHeader(IntakeHeaders.SUPPLIER, supplier);
            exchange.getMessage().setHeader(IntakeHeaders.JOB_ID, jobId == null ? null : jobId.toString());
            exchange.getMessage().setHeader(LINE, record.line());
        });
        Exception failure = result.getException();
        if (failure instanceof DirectConsumerNotAvailableException || TransientFailures.isConnectionLoss(failure)) {
            throw new HookFailedForNowException(name, record.line(), failure);
        }
        if (failure != null) {
            String message = String.valueOf(failure.getMessage());
            return RawRecord.broken(record.index(), record.line(),
                    "hook " + name + " failed: " + SafeText.of(message, MAX_MESSAGE));
        }
        Object body = result.getMessage().getBody();
        if (!(body instanceof Map<?, ?> map)) {
            String kind = body == null ? "nothing" : "a " + body.getClass().getSimpleName();
            return RawRecord.broken(record.index(), record.line(),
                    "hook " + name + " returned " + kind + ", not a map of fields");
        }
        Map<String, String> fields = new LinkedHashMap<>();
        map.forEach((k, v) -> fields.put(String.valueOf(k), v == null ? null : String.valueOf(v)));
        // the supplier's names of the fields and what its mapping could not read stay with the record
        return new RawRecord(record.index(), record.line(), fields, null, record.labels(), record.fieldProblems());
    }
}
