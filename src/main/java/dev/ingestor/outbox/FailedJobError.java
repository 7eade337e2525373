package dev.ingestor.outbox;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The error of a FAILED job, in the one form every failure writes it: {@code <stage> failed (dead letter <id>):
 * <message>}. The admin key sees it whole. A supplier's key (the job JSON) and a supplier's own webhook see only
 * {@link #shownToSupplier}: a stable reason and the dead letter under which an operator finds the rest, never the
 * message, which may be a database error or name an exception's class.
 */
public final class FailedJobError {

    /** What a supplier is shown of a FAILED job's error that is in no form this class wrote. */
    public static final String UNNAMED = "failed; the operators have the details";

    private static final Pattern STAGE = Pattern.compile("[a-z]+");
    private static final Pattern WRITTEN = Pattern.compile("([a-z]+ failed)( \\(dead letter \\d+\\))?(: .*)?",
            Pattern.DOTALL);

    private FailedJobError() {
    }

    /** The job's error: what failed, the dead letter that holds the details, and the failure's own message. */
    public static String of(String stage, long deadLetterId, String message) {
        String name = stage != null && STAGE.matcher(stage).matches() ? stage : "unknown";
        return name + " failed (dead letter " + deadLetterId + "): " + message;
    }

    /** The part of {@code error} a supplier is shown: the stage that failed and the dead letter's id. */
    public static String shownToSupplier(String error) {
        Matcher written = error == null ? null : WRITTEN.matcher(error);
        if (written == null || !written.matches()) {
            return UNNAMED;
        }
        return written.group(1) + (written.group(2) == null ? "" : written.group(2));
    }
}
