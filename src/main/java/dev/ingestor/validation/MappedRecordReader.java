package dev.ingestor.validation;

/** The records of a supplier's file in the record's names and formats ({@link RecordMapping#apply}). */
final class MappedRecordReader implements RecordReader {

    private final RecordReader records;
    private final RecordMapping mapping;

    MappedRecordReader(RecordReader records, RecordMapping mapping) {
        this.records = records;
        this.mapping = mapping;
    }

    @Override
    public boolean hasNext() {
        return records.hasNext();
    }

    @Override
    public RawRecord next() {
        return mapping.apply(records.next());
    }

    @Override
    public void close() {
        records.close();
    }
}
