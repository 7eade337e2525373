package dev.ingestor.web;

import java.util.List;
import java.util.Locale;

import dev.ingestor.job.JobQuery;
import dev.ingestor.job.JobState;

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
