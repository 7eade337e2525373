package dev.ingestor.validation;

import java.io.IOException;
import java.io.Reader;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.Queue;

/**
 * The text of a CSV file on its way to the parser, record by record: it follows quotes, delimiters, line breaks
 * and comment lines as commons-csv reads them (no escape character, a quote opens a value only at its start, white
 * space before it included, as the parser ignores surrounding spaces), and
 * cuts a record that grows over {@link RecordLimits}. The parser then never holds more of a record than the limit:
 * the rest of a cut record is dropped up to its end, and the record is closed with one more value, {@link #marker},
 * a random word no file can contain by chance, which tells the reader that record was cut; {@link #nextCut} gives
 * its full size. A comment line is passed on as its line break alone: the parser, which would gather the comments
 * before a record into one text, sees an empty line, which it passes over.
 * <p>
 * A control character the parser takes for white space ({@link #isControlSpace}) is passed on as its stand-in where
 * it starts or is part of an unquoted value, which the parser keeps in the value, and the reader puts back ({@link
 * #restored}): the parser would drop it around the value, which would be read without it, where a NUL or a BEL there
 * is kept and quarantines its record. One between a closing quote and the delimiter is no part of a value, and the
 * parser drops it as a space there.
 */
final class CsvRecordLimit extends Reader {

    /** A record cut while read: its size and fields in all, and the line breaks dropped inside its quoted values. */
    record Cut(long size, long fields, long droppedLineBreaks) {
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * Where the stand-in of a control character starts: a lone low surrogate (U+DC0B to U+DC1F), which text decoded
     * strictly never holds (a low surrogate there always follows a high one) and the parser takes for no white space.
     */
    private static final char STAND_IN = '\uDC00';

    private enum State { LINE_START, FIELD_START, UNQUOTED, QUOTED, QUOTE_IN_QUOTED, AFTER_CLOSE, COMMENT }

    private final Reader in;
    private final char delimiter;
    private final char quote;
    private final int comment;
    private final RecordLimits limits;
    private final String marker;
    private final Queue<Cut> cuts = new ArrayDeque<>();
    private final char[] buffer;
    private int position;
    private int end;
    private boolean eof;

    private State state = State.LINE_START;
    private long size;
    private long fields;
    /** The state the record was in when it was cut, or null while it is passed on whole. */
    private State cutIn;
    private long droppedLineBreaks;
    private boolean lastWasCarriageReturn;
    /** What is passed on before any more of the file: the end of a cut record. */
    private String pending = "";

    /** {@code chunk}: how many characters it reads from {@code in} at once. */
    CsvRecordLimit(Reader in, char delimiter, char quote, Character comment, RecordLimits limits, int chunk) {
        this.in = in;
        this.buffer = new char[chunk];
        this.delimiter = delimiter;
        this.quote = quote;
        this.comment = comment == null ? -1 : comment;
        this.limits = limits;
        this.marker = marker(delimiter, quote, this.comment);
    }

    /** Lower-case letters, none of them the delimiter, quote or comment character (header names are lower-cased). */
    private static String marker(char delimiter, char quote, int comment) {
        StringBuilder word = new StringBuilder(32);
        while (word.length() < 32) {
            char c = (char) ('a' + RANDOM.nextInt(26));
            if (c != delimiter && c != quote && c != comment) {
                word.append(c);
            }
        }
        return word.toString();
    }

    /** The last value of a record the parser read when that record was cut. */
    String marker() {
        return marker;
    }

    /** The next record cut, in the order the parser reads them; null when none is known. */
    Cut nextCut() {
        return cuts.poll();
    }

    @Override
    public int read(char[] out, int offset, int length) throws IOException {
        if (length == 0) {
            return 0;
        }
        int written = 0;
        while (written < length) {
            if (!pending.isEmpty()) {
                int n = Math.min(pending.length(), length - written);
                pending.getChars(0, n, out, offset + written);
                pending = pending.substring(n);
                written += n;
                continue;
            }
            if (position == end) {
                if (eof || written > 0 && !in.ready()) {
                    break;
                }
                int n = in.read(buffer, 0, buffer.length);
                if (n < 0) {
                    eof = true;
                    if (cutIn != null) {
                        pending = ending();
                        cutIn = null;
                        continue;
                    }
                    break;
                }
                position = 0;
                end = n;
                continue;
            }
            char c = buffer[position++];
            if (pass(c)) {
                out[offset + written++] = passedAs(c);
            }
        }
        return written == 0 && eof ? -1 : written;
    }

    /** Follows {@code c} through the record; whether it is passed on (false: dropped, or held in {@link #pending}). */
    private boolean pass(char c) {
        boolean lineBreak = c == '\n' || c == '\r';
        boolean countedBreak = c == '\r' || c == '\n' && !lastWasCarriageReturn;
        lastWasCarriageReturn = c == '\r';
        State before = state;
        if (state == State.LINE_START && !lineBreak) {
            size = 0;
            fields = 1;
            state = comment >= 0 && c == comment ? State.COMMENT : State.FIELD_START;
        }
        boolean recordEnds = false;
        switch (state) {
            case LINE_START -> {
                return cutIn == null; // an empty line, or the \n of \r\n
            }
            case FIELD_START -> {
                if (c != delimiter && !lineBreak && Character.isWhitespace(c) && !isControlSpace(c)) {
                    // still the value's start: the parser skips white space there (not a line break or the
                    // delimiter, as its lexer), so a quote after it opens a quoted value; a control character is
                    // passed on as its stand-in, which starts an unquoted value (passedAs)
                    break;
                }
                if (c == quote) {
                    state = State.QUOTED;
                } else if (c == delimiter) {
                    fields++;
                } else if (lineBreak) {
                    recordEnds = true;
                } else {
                    state = State.UNQUOTED;
                }
            }
            case UNQUOTED, AFTER_CLOSE -> {
                if (c == delimiter) {
                    fields++;
                    state = State.FIELD_START;
                } else if (lineBreak) {
                    recordEnds = true;
                }
            }
            case QUOTED -> {
                if (c == quote) {
                    state = State.QUOTE_IN_QUOTED;
                }
            }
            case QUOTE_IN_QUOTED -> {
                if (c == quote) {
                    state = State.QUOTED;
                } else if (c == delimiter) {
                    fields++;
                    state = State.FIELD_START;
                } else if (lineBreak) {
                    recordEnds = true;
                } else {
                    state = State.AFTER_CLOSE;
                }
            }
            case COMMENT -> recordEnds = lineBreak;
        }
        if (recordEnds) {
            state = State.LINE_START;
            if (cutIn != null) {
                pending = ending() + c;
                cutIn = null;
                return false;
            }
            return true;
        }
        if (state == State.COMMENT) {
            // a comment's text is not passed on, only its line break: the parser gathers the comments before a record
            // into one text (commons-csv keeps them for the record), whose size no limit would bound
            return false;
        }
        size++;
        if (cutIn == null && (size > limits.maxSize() || fields > limits.maxFields())) {
            // the state before this character is where the text passed on so far stops
            cutIn = before == State.LINE_START ? State.FIELD_START : before;
        }
        if (cutIn != null && state == State.QUOTED && lineBreak && countedBreak) {
            // a line break inside a quoted value, dropped (the one the cut falls on too): the parser never counts it
            droppedLineBreaks++;
        }
        return cutIn == null;
    }

    /**
     * {@code c}, just passed, as the parser is to read it: a control character it takes for white space, in an
     * unquoted value, as its stand-in.
     */
    private char passedAs(char c) {
        return state == State.UNQUOTED && isControlSpace(c) && c != delimiter ? (char) (STAND_IN + c) : c;
    }

    /**
     * Whether {@code c} is a control character that {@link Character#isWhitespace} counts as white space, as the
     * parser's lexer does around a value: U+000B, U+000C and U+001C to U+001F (not a tab or a line break).
     */
    static boolean isControlSpace(char c) {
        return c < ' ' && c != '\t' && c != '\n' && c != '\r' && Character.isWhitespace(c);
    }

    /** {@code value} as the parser read it, with the control characters passed on as stand-ins put back. */
    static String restored(String value) {
        char[] chars = null;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c > STAND_IN && c < STAND_IN + ' ' && isControlSpace((char) (c - STAND_IN))
                    && (i == 0 || !Character.isHighSurrogate(value.charAt(i - 1)))) {
                chars = chars == null ? value.toCharArray() : chars;
                chars[i] = (char) (c - STAND_IN);
            }
        }
        return chars == null ? value : new String(chars);
    }

    /** What closes a cut record for the parser: its open quoted value, then the marker as one more value. */
    private String ending() {
        if (cutIn == State.COMMENT) {
            return "";
        }
        cuts.add(new Cut(size, fields, droppedLineBreaks));
        droppedLineBreaks = 0;
        return (cutIn == State.QUOTED ? String.valueOf(quote) : "") + delimiter + marker;
    }

    @Override
    public boolean ready() throws IOException {
        return !pending.isEmpty() || position < end || in.ready();
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
