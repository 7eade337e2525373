package dev.ingestor.job;

import java.util.ArrayList;
import java.util.List;

/**
 * Which page of a list: by cursor ({@code numbered} false; {@code after} the cursor of the page before, null for
 * the first), or by page number ({@code numbered}, with the total, read with OFFSET as before cursors).
 */
public record PageRequest(boolean numbered, int page, int size, PageCursor after) {

    /** The arguments with the LIMIT (one row more than the page, to know whether more follow) and the OFFSET. */
    public Object[] limitAndOffset(List<Object> args) {
        List<Object> all = new ArrayList<>(args);
        all.add(size + 1);
        all.add(numbered ? (long) page * size : 0L);
        return all.toArray();
    }
}
