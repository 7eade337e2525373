package dev.ingestor.record;

import java.io.Closeable;
import java.util.Iterator;

/**
 * Reads a file one record at a time; a file of any length costs one record of memory. Throws
 * {@link UnreadableFileException} when the file as a whole is not of the expected format.
 */
public interface RecordReader extends Iterator<RawRecord>, Closeable {

    @Override
    void close();
}
