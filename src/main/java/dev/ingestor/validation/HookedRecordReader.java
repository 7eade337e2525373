package dev.ingestor.validation;

/** A reader whose every record passes through a supplier's hook route on its way to validation. */
final class HookedRecordReader implements RecordReader {

    private final RecordReader reader;
    private final RecordHook hook;

    HookedRecordReader(RecordReader reader, RecordHook hook) {
        this.reader = reader;
        this.hook = hook;
    }

    @Override
    public boolean hasNext() {
        return reader.hasNext();
    }

    @Override
    public RawRecord next() {
        return hook.apply(reader.next());
    }

    @Override
    public void close() {
        reader.close();
    }
}
