package dev.ingestor.record;

import java.io.InputStream;
import java.nio.charset.Charset;

/** How a supplier writes records: CSV with a header row, or JSON (an array of objects, or JSON Lines). */
public enum RecordFormat {
    CSV, JSON;

    public RecordReader open(InputStream in, Charset charset, char delimiter) {
        return this == CSV ? new CsvRecordReader(in, charset, delimiter) : new JsonRecordReader(in, charset);
    }
}
