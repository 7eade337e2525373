package dev.ingestor.validation;

import java.io.IOException;
import java.io.Reader;
import java.util.BitSet;

import dev.ingestor.config.JsonNesting;

/**
 * The text of JSON Lines on its way to be cut in lines, watched until its first line ends: whether that line ends
 * inside its JSON value, outside a string ({@code {"lines": [} on a line of its own), which makes the file one
 * document over several lines. The whole line is watched, the part of a line over the record limit that is not
 * kept too: the line's own text then tells only how it starts. A bracket closed by the other kind, or values nested
 * deeper than JSON is read ({@link JsonNesting#MAX_DEPTH}), end the watch inside no value: the line is a broken
 * record, as the parser would find it before the line's end, not a document's first line.
 */
final class FirstLineDepth extends Reader {

    private final Reader in;
    private boolean watching = true;
    private boolean inString;
    private boolean escaped;
    /** The objects and arrays open so far. */
    private int open;
    /** Which of them are arrays, by depth from 0. */
    private final BitSet arrays = new BitSet();

    FirstLineDepth(Reader in) {
        this.in = in;
    }

    /** Whether the first line, once read, ends inside its first value (after a string, not inside one). */
    boolean endsInsideValue() {
        return open > 0 && !inString;
    }

    @Override
    public int read(char[] out, int offset, int length) throws IOException {
        int n = in.read(out, offset, length);
        for (int i = offset; watching && i < offset + n; i++) {
            watch(out[i]);
        }
        return n;
    }

    private void watch(char c) {
        if (c == '\n' || c == '\r') {
            watching = false;
        } else if (escaped) {
            escaped = false;
        } else if (inString) {
            escaped = c == '\\';
            inString = c != '"';
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            if (open == JsonNesting.MAX_DEPTH) {
                brokenRecord();
                return;
            }
            arrays.set(open++, c == '[');
        } else if (c == '}' || c == ']') {
            if (open == 0 || arrays.get(open - 1) != (c == ']')) {
                brokenRecord();
                return;
            }
            // the first value ended on the line: what follows it is that record's problem, not a document's
            watching = --open > 0;
        }
    }

    /** The line is no JSON value the parser reads to its end: the watch ends, inside no value. */
    private void brokenRecord() {
        open = 0;
        watching = false;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}
