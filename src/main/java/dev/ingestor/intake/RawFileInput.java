package dev.ingestor.intake;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

import dev.ingestor.job.ContentKey;

/**
 * A stored file's bytes, whose read failures are {@link RawFileReadException}s naming the file. {@code available()} is
 * a hint: a file that cannot say (a pipe, a volume that fails) answers 0, "not known", and the read that follows
 * reports a failure of the storage.
 */
final class RawFileInput extends FilterInputStream {

    private final ContentKey key;

    RawFileInput(InputStream in, ContentKey key) {
        super(in);
        this.key = key;
    }

    @Override
    public int read() {
        try {
            return super.read();
        } catch (IOException e) {
            throw new RawFileReadException(key, e);
        }
    }

    @Override
    public int read(byte[] b, int off, int len) {
        try {
            return super.read(b, off, len);
        } catch (IOException e) {
            throw new RawFileReadException(key, e);
        }
    }

    @Override
    public long skip(long n) {
        try {
            return super.skip(n);
        } catch (IOException e) {
            throw new RawFileReadException(key, e);
        }
    }

    @Override
    public int available() {
        try {
            return super.available();
        } catch (IOException e) {
            return 0;
        }
    }
}
