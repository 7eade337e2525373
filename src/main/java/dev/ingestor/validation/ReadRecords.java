package dev.ingestor.validation;

import java.util.List;

import org.apache.camel.Exchange;

/**
 * The records of a small file as the validation stage read them, handed on to the processing stage in the same
 * exchange (routes/validation.camel.yaml, step 4), so a file that fits in one processing batch is claimed once and
 * read once. At most {@code ingestor.pipeline.batch-size} records of a file of at most
 * {@code ingestor.pipeline.one-pass-max-size}.
 * A file's stored bytes never change, and a supplier's hook must give the same record for the same input, so
 * the records read are the records processing would read again.
 */
public final class ReadRecords {

    /** The records (a {@code List<RawRecord>}), set when validation hands its job on to processing. */
    public static final String PROPERTY = "IngestorReadRecords";
    /**
     * True when validation handed its job on, still held, to processing; the route's filter reads this flag rather
     * than comparing the records with null, because Camel's simple language prints both sides of a comparison.
     */
    public static final String HANDED_ON = "IngestorHandedToProcessing";

    private ReadRecords() {
    }

    static void handOn(Exchange exchange, List<RawRecord> records) {
        exchange.setProperty(PROPERTY, records);
        exchange.setProperty(HANDED_ON, Boolean.TRUE);
    }

    /** The records validation read for this exchange's job, or null when processing must read the file. */
    @SuppressWarnings("unchecked")
    public static RecordReader of(Exchange exchange) {
        List<RawRecord> records = exchange.getProperty(PROPERTY, List.class);
        if (records == null) {
            return null;
        }
        // the file was closed when validation finished reading it
        return RecordReader.of(records.iterator());
    }
}
