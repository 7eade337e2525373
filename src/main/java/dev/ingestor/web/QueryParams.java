package dev.ingestor.web;

import java.util.List;
import java.util.Locale;

import dev.ingestor.job.JobQuery;
import dev.ingestor.job.JobState;
import dev.ingestor.job.PageCursor;

/** Query parameters of the list endpoints, read the same way everywhere; a bad one is a 400 naming it. */
public final class QueryParams {

    private QueryParams() {
    }

    /** A job state, or null when absent. */
    public static JobState state(String state) {
        if (state == null || state.isBlank()) {
            return null;
        }
        try {
            return JobState.valueOf(state.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw invalid("state '" + state + "' is not one of " + List.of(JobState.values()));
        }
    }

    public static int number(String name, String value, int fallback) {
        if (value == null || value.isBlank()) {
            return fallback;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw invalid(name + " '" + value + "' is not a whole number");
        }
    }

    /** Checks page and size as every list does (size at most {@link JobQuery#MAX_SIZE}). */
    public static void page(int page, int size) {
        try {
            new JobQuery(null, null, page, size);
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
    }

    /**
     * Whether a list is asked for by page number ({@code page} given): then it is read with OFFSET and answered with
     * its total, as before cursors; otherwise by cursor ({@code after}, or the first page), with {@code more}.
     */
    public static boolean byPageNumber(String page, String after) {
        boolean numbered = page != null && !page.isBlank();
        if (numbered && after != null && !after.isBlank()) {
            throw invalid("give either after (the cursor of the page before) or page, not both");
        }
        return numbered;
    }

    /** The cursor {@code after} of a list ordered by a time and an id; null when absent. */
    public static PageCursor timedCursor(String after) {
        PageCursor cursor = cursor(after);
        if (cursor != null && cursor.at() == null) {
            throw invalid("after is not a cursor this list gave out (take it from the 'next' of the page before)");
        }
        return cursor;
    }

    /** The cursor {@code after} of a job list; null when absent. */
    public static PageCursor jobCursor(String after) {
        PageCursor cursor = timedCursor(after);
        if (cursor != null) {
            try {
                cursor.uuid();
            } catch (IllegalArgumentException e) {
                throw invalid(e.getMessage());
            }
        }
        return cursor;
    }

    /** The cursor {@code after} of a list ordered by a numeric id alone; null when absent. */
    public static Long idCursor(String after) {
        PageCursor cursor = cursor(after);
        try {
            return cursor == null ? null : cursor.numericId();
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
    }

    private static PageCursor cursor(String after) {
        try {
            return PageCursor.parse(after);
        } catch (IllegalArgumentException e) {
            throw invalid(e.getMessage());
        }
    }

    /**
     * A text filter of a list ({@code supplier}, {@code source}): trimmed, null when absent or blank. One holding a
     * control character is a 400 naming it: the database refuses a NUL in text, which would otherwise be a 500, and
     * no supplier code or source holds one. (A path that holds one is refused before any route.)
     */
    public static String text(String name, String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        if (value.chars().anyMatch(Character::isISOControl)) {
            throw invalid(name + " holds a control character");
        }
        return value.trim();
    }

    /** A job id from a path; anything but a UUID is a 400 naming it. */
    public static java.util.UUID jobId(String id) {
        try {
            return java.util.UUID.fromString(id);
        } catch (IllegalArgumentException | NullPointerException e) {
            throw ApiProblemException.badRequest("invalid-job-id",
                    "job id '" + id + "' is not a UUID such as 0192f6c4-5b8e-7c3a-9d1e-2f4a6b8c0d1e");
        }
    }

    public static ApiProblemException invalid(String detail) {
        return ApiProblemException.badRequest("invalid-query", detail);
    }
}
