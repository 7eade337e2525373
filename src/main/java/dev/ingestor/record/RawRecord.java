package dev.ingestor.record;

import java.util.Map;

/** One record as read from a file, before validation: its position and its fields as text. */
public record RawRecord(long index, long line, Map<String, String> fields, String problem) {

    /** A record that could not even be split into fields (a broken JSON line, a short CSV row). */
    public static RawRecord broken(long index, long line, String problem) {
        return new RawRecord(index, line, Map.of(), problem);
    }

    public boolean isBroken() {
        return problem != null;
    }

    public String where() {
        return "line " + line;
    }
}
