package dev.ingestor.validation;

import java.io.Closeable;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.util.Iterator;

import dev.ingestor.config.RecordFormat;

/**
 * Reads a file one record at a time; a file of any length costs one record of memory. Throws
 * {@link UnreadableFileException} when the file as a whole is not of the expected format.
 */
public interface RecordReader extends Iterator<RawRecord>, Closeable {

    /** The reader of a supplier's format over {@code in}; the delimiter matters to CSV only. */
    static RecordReader open(RecordFormat format, InputStream in, Charset charset, char delimiter) {
        return openAsWritten(format, in, charset, delimiter, RecordMapping.NONE, RecordLimits.DEFAULT);
    }

    /** The same, in the supplier's own layout: its records come out in the record's names and formats. */
    static RecordReader open(RecordFormat format, InputStream in, Charset charset, char delimiter,
            RecordMapping mapping) {
        return open(format, in, charset, delimiter, mapping, RecordLimits.DEFAULT);
    }

    /** The same, a record over {@code limits} coming out as one quarantined naming the limit. */
    static RecordReader open(RecordFormat format, InputStream in, Charset charset, char delimiter,
            RecordMapping mapping,
            RecordLimits limits) {
        return new TransformedRecordReader(openAsWritten(format, in, charset, delimiter, mapping, limits),
                mapping::apply);
    }

    /**
     * The supplier's records as the supplier wrote them (its field names and formats): the mapping's layout
     * settings (header, columns, quote, comment, skipped lines, records path) apply, its renames and formats not.
     */
    static RecordReader openAsWritten(RecordFormat format, InputStream in, Charset charset, char delimiter,
            RecordMapping mapping,
            RecordLimits limits) {
        return format == RecordFormat.CSV
                ? new CsvRecordReader(in, charset, delimiter, mapping, limits)
                : new JsonRecordReader(in, charset, mapping.recordsPath(), limits);
    }

    /** Records already read (in memory), as a reader; closing it closes nothing. */
    static RecordReader of(Iterator<RawRecord> records) {
        return new RecordReader() {
            @Override
            public boolean hasNext() {
                return records.hasNext();
            }

            @Override
            public RawRecord next() {
                return records.next();
            }

            @Override
            public void close() {
                // nothing open
            }
        };
    }

    @Override
    void close();
}
