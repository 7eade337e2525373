package dev.ingestor.validation;

import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.util.Objects;

/**
 * The characters of a file's bytes, read up to bytes that are not text in its charset: the characters before them
 * are read first, and the next read fails with {@link NotText}, naming the bytes and the line they are on, counted
 * here (a line ends at \n, \r or \r\n). An {@code InputStreamReader} fails for the whole block it decodes, so a
 * parser reading through it never reached the line of the bytes, and named its own, thousands of lines before.
 */
final class LineCountingDecoder extends Reader {

    /** Bytes that are not text in the charset, on {@link #line}. */
    static final class NotText extends CharacterCodingException {

        private static final long serialVersionUID = 1L;

        private final long line;
        private final String detail;

        NotText(long line, String detail) {
            this.line = line;
            this.detail = detail;
        }

        /** {@code line 4000: byte FF is not UTF-8}. */
        @Override
        public String getMessage() { return "line " + line + ": " + detail; }
    }

    /** At most this many of the bytes are named. */
    private static final int NAMED_BYTES = 8;

    private final InputStream in;
    private final CharsetDecoder decoder;
    private final ByteBuffer bytes = ByteBuffer.allocate(8 * 1024).flip();
    private boolean endOfInput;
    /** The bytes are all decoded, and the decoder gives what it holds back ({@code flush}) until it has ended. */
    private boolean flushing;
    private boolean ended;
    /** What the bytes that are not text are, once the decoder met them; thrown when the text before them is read. */
    private String notText;
    private long lineBreaks;
    private boolean afterCarriageReturn;
    /** The second half of a surrogate pair a one-character read could not take, or -1. */
    private int leftover = -1;

    /** {@code decoder} reports malformed and unmappable input; it is not replaced. */
    LineCountingDecoder(InputStream in, CharsetDecoder decoder) {
        this.in = in;
        this.decoder = decoder;
    }

    @Override
    public int read(char[] out, int offset, int length) throws IOException {
        Objects.checkFromIndexSize(offset, length, out.length);
        if (length == 0) {
            return 0;
        }
        if (leftover >= 0) {
            out[offset] = (char) leftover;
            leftover = -1;
            return 1;
        }
        if (length == 1) {
            // a pair of surrogates is decoded together, and needs room for both
            char[] two = new char[2];
            int n = read(two, 0, 2);
            if (n > 0) {
                out[offset] = two[0];
                leftover = n == 2 ? two[1] : -1;
            }
            return Math.min(n, 1);
        }
        CharBuffer chars = CharBuffer.wrap(out, offset, length);
        while (chars.position() == offset && notText == null && !ended) {
            if (flushing) {
                ended = decoder.flush(chars).isUnderflow();
                continue;
            }
            CoderResult result = decoder.decode(bytes, chars, endOfInput);
            if (result.isError()) {
                notText = describe(result.length());
            } else if (result.isUnderflow() && endOfInput) {
                flushing = true;
            } else if (result.isUnderflow() && chars.position() == offset) {
                readBytes();
            }
        }
        int n = chars.position() - offset;
        count(out, offset, n);
        if (n > 0) {
            return n;
        }
        if (notText != null) {
            throw new NotText(lineBreaks + 1, notText);
        }
        return -1;
    }

    private void readBytes() throws IOException {
        bytes.compact();
        int n = in.read(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
        if (n < 0) {
            endOfInput = true;
        } else {
            bytes.position(bytes.position() + n);
        }
        bytes.flip();
    }

    /** {@code byte FF is not UTF-8}, for the {@code length} bytes the decoder stands on. */
    private String describe(int length) {
        StringBuilder named = new StringBuilder(length == 1 ? "byte" : "bytes");
        for (int i = 0; i < Math.min(length, NAMED_BYTES); i++) {
            named.append(String.format(" %02X", bytes.get(bytes.position() + i) & 0xFF));
        }
        return named + (length > NAMED_BYTES ? " ..." : "") + (length == 1 ? " is" : " are") + " not "
                + decoder.charset().name();
    }

    private void count(char[] text, int from, int n) {
        for (int i = from; i < from + n; i++) {
            char c = text[i];
            if (c == '\r' || c == '\n' && !afterCarriageReturn) {
                lineBreaks++;
            }
            afterCarriageReturn = c == '\r';
        }
    }

    /**
     * Only a held character is sure to be read: a reader above that reads on while this one is ready
     * ({@code BufferedReader}) drops what it read in that call when the next read fails, which would take the text
     * before the bytes that are not text away from the parser.
     */
    @Override
    public boolean ready() {
        return leftover >= 0;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
