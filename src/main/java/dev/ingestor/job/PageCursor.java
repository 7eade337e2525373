package dev.ingestor.job;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;

/**
 * Where a list paged by key goes on: the sort key of the last row of the page before (a time, microseconds as
 * PostgreSQL keeps them, and the row's id). Given out as an opaque text ({@link #text}), which a caller hands back
 * as {@code after}; the next page is the rows after it in the list's order, read from an index, so a page costs its
 * rows whatever its depth, and rows arriving meanwhile neither shift nor repeat the rows of later pages.
 */
public record PageCursor(Instant at, String id) {

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    public PageCursor {
        at = at == null ? null : at.truncatedTo(ChronoUnit.MICROS);
    }

    private static final Instant EARLIEST = Instant.parse("0001-01-01T00:00:00Z");
    private static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999999Z");

    /**
     * Whether {@code at} is a time a list may be given (a cursor's, a {@code since} or {@code until}): years 1 to 9999.
     * PostgreSQL refuses times past the year 294276, and Java's Timestamp turns far ones into others.
     */
    public static boolean isListTime(Instant at) {
        return !at.isBefore(EARLIEST) && !at.isAfter(LATEST);
    }

    /** A cursor of a list ordered by id alone. */
    public static PageCursor ofId(long id) {
        return new PageCursor(null, Long.toString(id));
    }

    public String text() {
        String plain = (at == null ? "" : at.toString()) + "|" + id;
        return ENCODER.encodeToString(plain.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The cursor {@code text} stands for; null when absent. Anything that is not a cursor this API gave out is an
     * {@link IllegalArgumentException} whose message names the parameter.
     */
    public static PageCursor parse(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            String plain = new String(DECODER.decode(text.trim()), StandardCharsets.UTF_8);
            int bar = plain.indexOf('|');
            if (bar < 0 || bar == plain.length() - 1) {
                throw new IllegalArgumentException("no separator");
            }
            Instant at = bar == 0 ? null : Instant.parse(plain.substring(0, bar));
            if (at != null && !isListTime(at)) {
                throw new IllegalArgumentException("a time out of range");
            }
            return new PageCursor(at, plain.substring(bar + 1));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("after '" + abbreviated(text)
                    + "' is not a cursor this list gave out (take it from the 'next' of the page before)");
        }
    }

    /** The id as a number (lists ordered by a bigserial id); not a number is the same refusal as in parse. */
    public long numericId() {
        try {
            return Long.parseLong(id);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("after is not a cursor this list gave out (its id is not a number)");
        }
    }

    /** The id as a UUID (job lists); not a UUID is the same refusal as in parse. */
    public java.util.UUID uuid() {
        try {
            return java.util.UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("after is not a cursor this list gave out (its id is not a job id)");
        }
    }

    private static String abbreviated(String text) {
        return text.length() <= 80 ? text : text.substring(0, 80) + "…";
    }
}
