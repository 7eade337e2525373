package dev.ingestor.validation;

import java.util.function.UnaryOperator;

/**
 * A reader whose every record is changed on its way to validation: by the supplier's mapping
 * ({@link RecordMapping#apply}, into the record's names and formats), or by its hook route ({@link RecordHook}).
 */
final class TransformedRecordReader implements RecordReader {

    private final RecordReader reader;
    private final UnaryOperator<RawRecord> change;

    TransformedRecordReader(RecordReader reader, UnaryOperator<RawRecord> change) {
        this.reader = reader;
        this.change = change;
    }

    @Override
    public boolean hasNext() {
        return reader.hasNext();
    }

    @Override
    public RawRecord next() {
        return change.apply(reader.next());
    }

    @Override
    public void close() {
        reader.close();
    }
}
