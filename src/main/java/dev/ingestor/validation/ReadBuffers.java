package dev.ingestor.validation;

import java.io.IOException;
import java.io.InputStream;

/**
 * How large a reader's buffers are: the file's size where the stream knows it, between 8 KiB and the most a reader
 * buffers. Most files are a few records; a buffer of a large file's size for each of them was most of what opening
 * one cost (allocated and zeroed per file, a group of small files opens fifty).
 */
final class ReadBuffers {

    static final int LEAST = 8 * 1024;
    /** The most a reader buffers of a file, however large the file. */
    static final int MOST = 256 * 1024;

    private ReadBuffers() {
    }

    /**
     * {@link #MOST}, or less for a stream that says how much it holds ({@code available()} of a file is what is left
     * of it); a stream that does not know (0, or 1 as a decompressor says) gets {@link #MOST}.
     */
    static int size(InputStream in) {
        return size(in, MOST);
    }

    static int size(InputStream in, int most) {
        try {
            int known = in.available();
            return known > 1 ? Math.max(LEAST, Math.min(most, known)) : most;
        } catch (IOException e) {
            return most;
        }
    }
}
