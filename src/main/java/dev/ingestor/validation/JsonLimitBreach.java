package dev.ingestor.validation;

import dev.ingestor.config.JsonNesting;
import tools.jackson.core.exc.StreamConstraintsException;

/**
 * What a supplier's JSON holds that the parser's limits ({@link JsonNesting#READ}) refuse, in the supplier's terms:
 * a number longer than 1000 digits, values nested deeper than 1000 levels. Jackson's own message names the Java
 * method that set the limit ({@code from StreamReadConstraints.getMaxNumberLength()}), which tells a supplier
 * nothing.
 */
final class JsonLimitBreach {

    private JsonLimitBreach() {
    }

    /** What the text holds, to follow "holds": {@code a number longer than 1000 digits, the limit ...}. */
    static String of(StreamConstraintsException e) {
        String message = e.getOriginalMessage();
        if (message.startsWith("Number value length")) {
            return "a number longer than " + JsonNesting.READ.getMaxNumberLength()
                    + " digits, the limit for JSON numbers";
        }
        if (message.startsWith("Document nesting depth")) {
            return "values nested deeper than " + JsonNesting.READ.getMaxNestingDepth()
                    + " levels, the limit for JSON";
        }
        // another of the parser's limits (none other is reached by a record within the record limits)
        return "more than the JSON parser takes: " + message.replaceFirst(", from `[^`]*`\\)", ")");
    }

    /** The limit {@code e} or one of its causes broke, or null. */
    static StreamConstraintsException in(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof StreamConstraintsException breach) {
                return breach;
            }
        }
        return null;
    }
}
