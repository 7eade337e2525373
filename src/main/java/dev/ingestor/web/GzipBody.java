package dev.ingestor.web;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import java.util.zip.ZipException;

/**
 * A body sent with {@code Content-Encoding: gzip}, decoded: every member in turn (RFC 1952 lets a gzip stream be
 * several members one after the other, as {@code cat a.gz b.gz} or a client that flushes a member at a time
 * writes them), and nothing after the last. A malformed body is a {@link ZipException}, one that ends inside a
 * member an {@link EOFException}; a failure to read the body itself is passed on as it is.
 *
 * <p>In place of {@link java.util.zip.GZIPInputStream}, which decides whether another member follows from the
 * bytes already received: a member that has not arrived yet when the one before ends is taken for the end of the
 * body, so the body was cut and stored as if whole; and it ignores whatever follows a member that is not a gzip
 * header, swallowing any exception of reading it.
 */
final class GzipBody extends InputStream {

    private static final int FHCRC = 0x02;
    private static final int FEXTRA = 0x04;
    private static final int FNAME = 0x08;
    private static final int FCOMMENT = 0x10;

    private final PushbackInputStream in;
    private final byte[] buffer = new byte[8192];
    private final Inflater inflater = new Inflater(true);
    private final CRC32 crc = new CRC32();
    private int buffered;
    private boolean inMember;
    private boolean members;
    private boolean ended;

    GzipBody(InputStream in) {
        this.in = new PushbackInputStream(in, buffer.length);
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        while (!ended) {
            if (!inMember) {
                inMember = startMember();
                ended = !inMember;
                continue;
            }
            if (inflater.needsInput()) {
                buffered = in.read(buffer);
                if (buffered < 0) {
                    throw new EOFException("the gzip body ends inside a member");
                }
                inflater.setInput(buffer, 0, buffered);
            }
            int n;
            try {
                n = inflater.inflate(b, off, len);
            } catch (DataFormatException e) {
                throw new ZipException("the compressed data is invalid: " + e.getMessage());
            }
            if (n > 0) {
                crc.update(b, off, n);
                return n;
            }
            if (inflater.finished()) {
                // what the inflater was given past the member's end is the trailer, and what follows it
                int rest = inflater.getRemaining();
                if (rest > 0) {
                    in.unread(buffer, buffered - rest, rest);
                }
                endMember();
            } else if (inflater.needsDictionary()) {
                throw new ZipException("the compressed data asks for a preset dictionary, which gzip has none of");
            }
        }
        return -1;
    }

    /** Reads a member's header; false at the end of the body after at least one member. */
    private boolean startMember() throws IOException {
        int first = in.read();
        if (first < 0 && members) {
            return false;
        }
        if (first != 0x1f || in.read() != 0x8b) {
            throw new ZipException(members
                    ? "bytes follow the last gzip member that are not another member"
                    : "the body does not start with a gzip header");
        }
        if (next() != 8) {
            throw new ZipException("the gzip compression method is not deflate");
        }
        int flags = next();
        skip(6); // modification time, extra flags, operating system
        if ((flags & FEXTRA) != 0) {
            skip(next() | next() << 8);
        }
        if ((flags & FNAME) != 0) {
            skipToZero();
        }
        if ((flags & FCOMMENT) != 0) {
            skipToZero();
        }
        if ((flags & FHCRC) != 0) {
            skip(2);
        }
        inflater.reset();
        crc.reset();
        members = true;
        return true;
    }

    private void endMember() throws IOException {
        long crcSent = readUInt();
        long sizeSent = readUInt();
        if (crcSent != crc.getValue() || sizeSent != (inflater.getBytesWritten() & 0xffffffffL)) {
            throw new ZipException("a gzip member's checksum or length does not match its data");
        }
        inMember = false;
    }

    private long readUInt() throws IOException {
        return (next() | next() << 8 | next() << 16 | (long) next() << 24) & 0xffffffffL;
    }

    private int next() throws IOException {
        int b = in.read();
        if (b < 0) {
            throw new EOFException("the gzip body ends inside a member");
        }
        return b;
    }

    private void skip(int count) throws IOException {
        for (int i = 0; i < count; i++) {
            next();
        }
    }

    private void skipToZero() throws IOException {
        while (next() != 0) {
            // a name or comment of the header, not content
        }
    }

    @Override
    public void close() throws IOException {
        inflater.end();
        in.close();
    }
}
