package dev.ingestor.job;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One page of a list as the admin API answers it: {@code more} whether rows follow, {@code next} the cursor to ask
 * for them with ({@code after}, null when none); {@code page} and {@code total} (every row of the list) only when
 * the page was asked for by number. Rows keep the column names the admin API shows.
 */
public record RowPage(List<Map<String, Object>> items, @JsonInclude(JsonInclude.Include.NON_NULL) Integer page,
        int size, @JsonInclude(JsonInclude.Include.NON_NULL) Long total, boolean more, String next) {

    /** The page of {@code rows} read with {@link PageRequest#limitAndOffset} (one row more than the page). */
    public static RowPage of(List<Map<String, Object>> rows, PageRequest request, Long total,
            Function<Map<String, Object>, PageCursor> cursor) {
        boolean more = rows.size() > request.size();
        List<Map<String, Object>> items = more ? rows.subList(0, request.size()) : rows;
        return new RowPage(items, request.numbered() ? request.page() : null, request.size(), total, more,
                more ? cursor.apply(items.get(items.size() - 1)).text() : null);
    }
}
