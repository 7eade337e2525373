package dev.ingestor.validation;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** A file made as it is read, of text parts each repeated a number of times: a file of any size in no memory. */
final class GeneratedFile extends InputStream {

    /** {@code text} {@code times} times; with {@code numbered}, each time with its number for {@code %d}. */
    private record Part(String text, long times, boolean numbered) {
        byte[] bytes(long time) {
            return (numbered ? text.replace("%d", Long.toString(time)) : text).getBytes(StandardCharsets.UTF_8);
        }
    }

    private final List<Part> parts = new ArrayList<>();
    private int part;
    private long done;
    private int offset;
    private byte[] current;

    GeneratedFile text(String text) {
        return repeat(text, 1);
    }

    GeneratedFile repeat(String text, long times) {
        parts.add(new Part(text, times, false));
        return this;
    }

    /** {@code text} {@code times} times, {@code %d} in it being 0, 1, 2 and so on. */
    GeneratedFile numbered(String text, long times) {
        parts.add(new Part(text, times, true));
        return this;
    }

    @Override
    public int read() {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] out, int off, int len) {
        int written = 0;
        while (written < len && part < parts.size()) {
            Part p = parts.get(part);
            if (done == p.times()) {
                part++;
                done = 0;
                current = null;
                continue;
            }
            if (current == null) {
                current = p.bytes(done);
            }
            int n = Math.min(len - written, current.length - offset);
            System.arraycopy(current, offset, out, off + written, n);
            written += n;
            offset += n;
            if (offset == current.length) {
                offset = 0;
                done++;
                current = p.numbered() ? null : current;
            }
        }
        return written == 0 && len > 0 ? -1 : written;
    }
}
