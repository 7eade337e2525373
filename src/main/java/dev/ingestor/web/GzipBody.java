package dev.ingestor.web;

import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.ZipException;

import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;

/**
 * A body sent with {@code Content-Encoding: gzip}, decoded: every member in turn (RFC 1952 lets a gzip stream be
 * several members one after the other, as {@code cat a.gz b.gz} or a client that flushes a member at a time writes
 * them), and nothing after the last. A malformed body is a {@link ZipException}, one that ends inside a member an
 * {@link EOFException}; a failure to read the body itself is passed on as it is.
 *
 * <p>Decoded by commons-compress ({@link GzipCompressorInputStream}, concatenated members), which reads on for the
 * next member until the body ends. The JDK's {@link java.util.zip.GZIPInputStream} decides whether another member
 * follows from the bytes already received: a member that had not arrived when the one before ended was taken for the
 * end of the body, which was then stored cut as if whole; and it ignored whatever followed a member that was not a
 * gzip header.
 */
final class GzipBody extends InputStream {

    private final Watched body;
    /** Made at the first read: commons-compress reads the first member's header as it is made. */
    private InputStream decoded;

    GzipBody(InputStream body) {
        this.body = new Watched(body);
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        try {
            if (decoded == null) {
                decoded = GzipCompressorInputStream.builder().setInputStream(body).setDecompressConcatenated(true)
                        .get();
            }
            return decoded.read(b, off, len);
        } catch (IOException e) {
            if (e == body.failure) {
                throw e;
            }
            IOException malformed = e instanceof EOFException
                    ? new EOFException("the gzip body ends inside a member")
                    : new ZipException(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
            malformed.initCause(e);
            throw malformed;
        }
    }

    @Override
    public void close() throws IOException {
        if (decoded != null) {
            decoded.close();
        } else {
            body.close();
        }
    }

    /** The body, which remembers the failure it threw last: that one is the body's, not malformed gzip. */
    private static final class Watched extends FilterInputStream {

        private IOException failure;

        Watched(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            try {
                return super.read();
            } catch (IOException e) {
                failure = e;
                throw e;
            }
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            try {
                return super.read(b, off, len);
            } catch (IOException e) {
                failure = e;
                throw e;
            }
        }
    }
}
