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
 *
 * <p>commons-compress keeps a member header's file name and comment in memory as it reads them, to their closing NUL,
 * however long: a header is refused once it has taken more than {@link #MAX_HEADER} bytes of the body, so a name of
 * the body's whole size never fills the heap.
 */
final class GzipBody extends InputStream {

    /**
     * The most bytes of the body one member's header may take: its extra field (at most 64 KB) and a file name and a
     * comment as tools write them, with room to spare.
     */
    static final int MAX_HEADER = 128 * 1024;

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
                        .setOnMemberStart(member -> body.headerRead()).setOnMemberEnd(member -> body.headerStarts())
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

    /**
     * The body, which remembers the failure it threw last: that one is the body's, not malformed gzip. It also counts
     * the bytes read while a member's header is (from the body's start, and from each member's end, to the header's
     * end), and refuses a header past {@link #MAX_HEADER}. No mark: commons-compress then reads it through a buffer
     * of its own, and each byte of the body is counted once.
     */
    private static final class Watched extends FilterInputStream {

        private IOException failure;
        /** Bytes read since the header under way began; -1 while no header is. */
        private long inHeader;

        Watched(InputStream in) {
            super(in);
        }

        void headerRead() {
            inHeader = -1;
        }

        void headerStarts() {
            inHeader = 0;
        }

        @Override
        public int read() throws IOException {
            int b;
            try {
                b = super.read();
            } catch (IOException e) {
                failure = e;
                throw e;
            }
            counted(b < 0 ? 0 : 1);
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n;
            try {
                n = super.read(b, off, len);
            } catch (IOException e) {
                failure = e;
                throw e;
            }
            counted(n);
            return n;
        }

        @Override
        public boolean markSupported() {
            return false;
        }

        private void counted(int n) throws ZipException {
            if (inHeader >= 0 && n > 0) {
                inHeader += n;
                if (inHeader > MAX_HEADER) {
                    throw new ZipException("a gzip member's header (its file name, comment and extra field) is larger"
                            + " than " + MAX_HEADER + " bytes");
                }
            }
        }
    }
}
