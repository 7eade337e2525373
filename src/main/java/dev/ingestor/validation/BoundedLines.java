package dev.ingestor.validation;

import java.io.IOException;
import java.io.Reader;

/**
 * The lines of a text, each kept up to a number of characters: a longer line is read to its end without being
 * kept, and comes out cut, with its full length. A line ends at \n, \r or \r\n, as {@code BufferedReader.readLine}
 * ends it.
 */
final class BoundedLines {

    /** One line: its text (cut after the limit when {@code cut}) and its length in characters. */
    record Line(String text, long length, boolean cut) {
    }

    private final Reader in;
    private final long maxLength;
    private final char[] buffer = new char[16 * 1024];
    private int position;
    private int end;
    private boolean skipNewline;

    BoundedLines(Reader in, long maxLength) {
        this.in = in;
        this.maxLength = maxLength;
    }

    /** The next line, or null at the end of the text. */
    Line next() throws IOException {
        StringBuilder kept = new StringBuilder();
        long length = 0;
        boolean any = false;
        while (true) {
            if (position == end) {
                int n = in.read(buffer, 0, buffer.length);
                if (n < 0) {
                    return any ? line(kept, length) : null;
                }
                position = 0;
                end = n;
            }
            if (skipNewline) {
                skipNewline = false;
                if (buffer[position] == '\n') {
                    position++;
                    continue;
                }
            }
            any = true;
            int start = position;
            while (position < end && buffer[position] != '\n' && buffer[position] != '\r') {
                position++;
            }
            int room = (int) Math.max(0, Math.min(position - start, maxLength - kept.length()));
            kept.append(buffer, start, room);
            length += position - start;
            if (position < end) {
                skipNewline = buffer[position] == '\r';
                position++;
                return line(kept, length);
            }
        }
    }

    private Line line(StringBuilder kept, long length) {
        return new Line(kept.toString(), length, length > maxLength);
    }
}
