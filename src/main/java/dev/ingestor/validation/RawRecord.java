package dev.ingestor.validation;

import java.util.Map;

/**
 * One record as read from a file, before validation: its position and its fields as text. {@code labels} gives
 * the supplier's own name of a record field (problems name the field as the supplier wrote it);
 * {@code fieldProblems} holds what the supplier's mapping could not read, by record field.
 */
public record RawRecord(long index, long line, Map<String, String> fields, String problem,
        Map<String, String> labels, Map<String, String> fieldProblems) {

    public RawRecord(long index, long line, Map<String, String> fields, String problem) {
        this(index, line, fields, problem, Map.of(), Map.of());
    }

    /** The name the supplier gives the record field {@code field}. */
    public String label(String field) {
        return field == null ? null : labels.getOrDefault(field, field);
    }

    /** A record that could not even be split into fields (a broken JSON line, a short CSV row). */
    public static RawRecord broken(long index, long line, String problem) {
        return new RawRecord(index, line, Map.of(), problem);
    }

    public boolean isBroken() { return problem != null; }

    /** Line numbers for files; an item of an HTTP batch has no line (-1) and is named by its position. */
    public String where() {
        return line >= 0 ? "line " + line : "item " + index;
    }

    /** The most zeros writing a decimal out in full may add. */
    static final int PLAIN_DIGITS = 100;

    /**
     * An object of a JSON document as a record: field names in lower case, values as text. A decimal is written out
     * in full without trailing zeros ({@code 1E+1}, as the canonical form of an item's {@code 10.0} keeps it, and a
     * file's {@code 10.0} are {@code 10}), so a number
     * reads as its value whichever way it was written; one whose exponent would write it out longer than
     * {@link #PLAIN_DIGITS} more digits than its own ({@code 1e999999999} is a billion) stays as written.
     */
    public static RawRecord ofJson(tools.jackson.databind.JsonNode node, long index, long line) {
        if (!node.isObject()) {
            return broken(index, line,
                    "is a JSON " + node.getNodeType().name().toLowerCase(java.util.Locale.ROOT) + ", not an object");
        }
        Map<String, String> fields = new java.util.LinkedHashMap<>();
        for (Map.Entry<String, tools.jackson.databind.JsonNode> field : node.properties()) {
            String name = field.getKey().toLowerCase(java.util.Locale.ROOT);
            if (fields.containsKey(name)) {
                return namedTwice(index, line, field.getKey());
            }
            fields.put(name, text(field.getValue()));
        }
        return new RawRecord(index, line, fields, null);
    }

    /** A record that names one field twice ({@code QUANTITY} and {@code quantity} too): neither value is taken. */
    static RawRecord namedTwice(long index, long line, String name) {
        return broken(index, line, "names the field \"" + dev.ingestor.logging.SafeText.of(name, 60)
                + "\" twice (field names are read in any case)");
    }

    /**
     * A record with an object inside it that names one field twice ({@code path}, as {@code x.y[0].a}): its text would
     * keep the last value only. Names inside a value are kept as written: {@code a} and {@code A} are two.
     */
    static RawRecord namedTwiceInside(long index, long line, String path) {
        return broken(index, line, "names the field \"" + dev.ingestor.logging.SafeText.of(path, 120)
                + "\" twice (an object inside a record too names each of its fields once)");
    }

    private static String text(tools.jackson.databind.JsonNode value) {
        if (value.isNull()) {
            return null;
        }
        if (value.isBigDecimal()) {
            // as the canonical form of an item writes it: 10.0 is 10, 1.50 is 1.5
            java.math.BigDecimal number = value.decimalValue();
            try {
                number = number.stripTrailingZeros();
            } catch (ArithmeticException e) {
                // zeros stripped would take its exponent past what a BigDecimal holds (100E2147483647): as written
                return number.toString();
            }
            return Math.abs((long) number.scale()) <= PLAIN_DIGITS ? number.toPlainString() : number.toString();
        }
        return value.isValueNode() ? value.asString() : value.toString();
    }
}
