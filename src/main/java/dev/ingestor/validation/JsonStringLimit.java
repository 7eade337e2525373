package dev.ingestor.validation;

import java.io.IOException;
import java.io.Reader;
import java.util.ArrayDeque;
import java.util.Queue;

/**
 * The text of a JSON file on its way to the parser: a string (a value or a field name) longer than the record
 * size limit is cut there, the rest of it dropped up to its closing quote, so the parser never builds more of one
 * string than the limit and reads on after it. Each cut is noted at its place in the text passed on (the parser's
 * character offsets), so the reader knows which record it belongs to and how much was dropped.
 */
final class JsonStringLimit extends Reader {

    /** A string cut at {@code offset} (in characters passed on), {@code dropped} characters of it not passed. */
    record Cut(long offset, long dropped) {
    }

    private enum State { OUTSIDE, STRING, ESCAPE, UNICODE }

    private final Reader in;
    private final long maxLength;
    private final Queue<Cut> cuts = new ArrayDeque<>();
    private final char[] buffer = new char[16 * 1024];

    private State state = State.OUTSIDE;
    private int hexDigitsLeft;
    private long length;
    private boolean dropping;
    private long dropped;
    private long passed;
    private char lastPassed;

    JsonStringLimit(Reader in, long maxLength) {
        this.in = in;
        this.maxLength = maxLength;
    }

    /**
     * The characters dropped from the strings of the text from {@code start} to {@code end} (the parser's character
     * offsets of one record); the cuts before {@code end} are taken out, those before {@code start} belonged to
     * text around the records.
     */
    long droppedBefore(long start, long end) {
        long sum = 0;
        while (!cuts.isEmpty() && cuts.peek().offset() < end) {
            Cut cut = cuts.poll();
            if (cut.offset() >= start) {
                sum += cut.dropped();
            }
        }
        return sum;
    }

    @Override
    public int read(char[] out, int offset, int length) throws IOException {
        if (length == 0) {
            return 0;
        }
        int written = 0;
        // a read that dropped all it read reads on: 0 would tell the parser to try again, not that text follows
        while (written == 0) {
            int n = in.read(buffer, 0, Math.min(length, buffer.length));
            if (n < 0) {
                return -1;
            }
            for (int i = 0; i < n; i++) {
                char c = buffer[i];
                if (pass(c)) {
                    out[offset + written++] = c;
                    lastPassed = c;
                    passed++;
                }
            }
        }
        return written;
    }

    private boolean pass(char c) {
        switch (state) {
            case OUTSIDE -> {
                if (c == '"') {
                    state = State.STRING;
                    length = 0;
                }
                return true;
            }
            case ESCAPE -> state = c == 'u' ? State.UNICODE : State.STRING;
            case UNICODE -> {
                if (--hexDigitsLeft == 0) {
                    state = State.STRING;
                }
            }
            case STRING -> {
                if (c == '"') {
                    state = State.OUTSIDE;
                    if (dropping) {
                        cuts.add(new Cut(passed, dropped));
                        dropping = false;
                    }
                    return true;
                }
                if (c == '\\') {
                    state = State.ESCAPE;
                    hexDigitsLeft = 4;
                }
                // a cut never parts a surrogate pair
                if (!dropping && length >= maxLength && !Character.isHighSurrogate(lastPassed)) {
                    dropping = true;
                    dropped = 0;
                }
            }
        }
        length++;
        if (dropping) {
            dropped++;
            return false;
        }
        return true;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
