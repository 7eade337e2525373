package dev.ingestor.validation;

import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.ingestor.logging.SafeText;
import tools.jackson.core.StreamReadConstraints;

/**
 * Checks every field of a delivery advice line and names each problem with its field, so a person can fix
 * the record: {@code quantity: '-3' is not a whole number greater than 0}. A field is named as the supplier
 * names it ({@link RawRecord#label}), so {@code Menge: '-3' ...} for a supplier whose mapping renames Menge.
 */
public final class DeliveryAdviceValidator {

    public static final List<String> REQUIRED_COLUMNS = List.of("source_id", "sku", "quantity", "delivery_date");
    /** The field that marks a tombstone: {@code true} retires the item; {@code false} or absent is a live record. */
    public static final String DELETED = "deleted";
    static final Set<String> KNOWN = Set.of("source_id", "source_version", "sku", "quantity", "delivery_date", DELETED);
    public static final int MAX_SOURCE_ID_LENGTH = 128;

    /**
     * The longest field name, in bytes of UTF-8: Jackson's own limit, which every reader of an item's record holds to
     * (the item history's, a consumer of its event, which counts the bytes it reads), so a record with a longer name is
     * never stored. An item batch refuses such a name as it reads it; a file's record is read with names as long as the
     * record may be, and is quarantined here.
     */
    static final int MAX_NAME_BYTES = StreamReadConstraints.DEFAULT_MAX_NAME_LEN;

    /** The problems a record's reason names at most. */
    static final int MAX_PROBLEMS = 10;
    /** The longest reason, in characters (as a quarantined record's row keeps it). */
    static final int MAX_REASON = 2000;

    private DeliveryAdviceValidator() {
    }

    /** How many bytes {@code text} is in UTF-8 (a pair of surrogates 4). */
    private static long utf8Length(String text) {
        long bytes = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
        }
        return bytes;
    }

    public static Validated validate(RawRecord raw) {
        if (raw.isBroken()) {
            return new Validated(raw, null, SafeText.of(raw.where() + " " + raw.problem(), MAX_REASON));
        }
        Map<String, String> f = raw.fields();
        List<String> problems = new ArrayList<>();
        f.forEach((name, value) -> {
            // a field name becomes a key of the item's jsonb attributes, which PostgreSQL cannot hold with NUL
            int inName = name == null ? -1 : SafeText.controlCharacterIn(name);
            if (inName == 0) {
                problems.add("field name '" + SafeText.of(name, 60) + "' contains the NUL character U+0000"
                        + " (PostgreSQL cannot store it)");
            } else if (inName > 0) {
                problems.add("field name '" + SafeText.of(name, 60) + "' contains the control character "
                        + String.format("U+%04X", inName));
            }
            if (name != null && utf8Length(name) > MAX_NAME_BYTES) {
                problems.add("field name '" + SafeText.of(name, 60) + "' is longer than " + MAX_NAME_BYTES
                        + " bytes (UTF-8), the most a field name may have");
            }
            int control = value == null ? -1 : SafeText.controlCharacterIn(value);
            if (control >= 0) {
                problems.add(SafeText.of(raw.label(name), 60) + ": contains the control character "
                        + String.format("U+%04X", control) + (isC1(control) ? C1_HINT : ""));
            }
            // not valid Unicode: UTF-8 on the way to PostgreSQL turns it into '?', so "a\uD800" and "a\uDBFF"
            // would both be stored as "a?" and no longer be the ids (or values) the supplier sent
            int loneInName = name == null ? -1 : SafeText.unpairedSurrogateIn(name);
            if (loneInName >= 0) {
                problems.add("field name '" + SafeText.of(name, 60) + "' contains an unpaired UTF-16 surrogate "
                        + String.format("U+%04X", (int) name.charAt(loneInName)) + " at character " + (loneInName + 1)
                        + " (not valid Unicode)");
            }
            int loneInValue = value == null ? -1 : SafeText.unpairedSurrogateIn(value);
            if (loneInValue >= 0) {
                problems.add(SafeText.of(raw.label(name), 60) + ": contains an unpaired UTF-16 surrogate "
                        + String.format("U+%04X", (int) value.charAt(loneInValue)) + " at character "
                        + (loneInValue + 1)
                        + " (not valid Unicode)");
            }
        });

        String sourceId = trimmed(f.get("source_id"));
        if (sourceId == null) {
            problems.add(raw.label("source_id") + ": missing");
        } else if (sourceId.length() > MAX_SOURCE_ID_LENGTH) {
            problems.add(raw.label("source_id") + ": " + sourceId.length() + " characters, at most "
                    + MAX_SOURCE_ID_LENGTH + " allowed");
        }
        Long sourceVersion = null;
        String version = trimmed(f.get("source_version"));
        if (version != null) {
            try {
                sourceVersion = Long.parseLong(version);
                if (sourceVersion < 0) {
                    problems.add(raw.label("source_version") + ": '" + version
                            + "' is negative; it must be a whole number 0 or greater");
                }
            } catch (NumberFormatException e) {
                problems.add(raw.label("source_version") + ": '" + clip(version) + "' is not a whole number");
            }
        }
        Boolean deleted = flag(f.get(DELETED));
        if (deleted == null) {
            problems.add(raw.label(DELETED) + ": '" + clip(f.get(DELETED)) + "' is neither true nor false");
        } else if (deleted) {
            // a tombstone names its item and version only: what the item held no longer matters
            if (!problems.isEmpty()) {
                return new Validated(raw, null, reason(raw, problems));
            }
            return new Validated(raw, DeliveryAdvice.tombstone(sourceId, sourceVersion), null);
        }
        String sku = trimmed(f.get("sku"));
        if (sku == null) {
            problems.add(raw.label("sku") + ": missing");
        }
        long quantity = 0;
        String qty = trimmed(f.get("quantity"));
        if (raw.fieldProblems().containsKey("quantity")) {
            problems.add(raw.fieldProblems().get("quantity"));
        } else if (qty == null) {
            problems.add(raw.label("quantity") + ": missing");
        } else {
            try {
                quantity = Long.parseLong(qty);
                if (quantity <= 0) {
                    problems.add(raw.label("quantity") + ": '" + qty + "' is not a whole number greater than 0");
                }
            } catch (NumberFormatException e) {
                problems.add(raw.label("quantity") + ": '" + clip(qty) + "' is not a whole number greater than 0");
            }
        }
        LocalDate deliveryDate = null;
        String date = trimmed(f.get("delivery_date"));
        if (raw.fieldProblems().containsKey("delivery_date")) {
            problems.add(raw.fieldProblems().get("delivery_date"));
        } else if (date == null) {
            problems.add(raw.label("delivery_date") + ": missing");
        } else {
            try {
                deliveryDate = LocalDate.parse(date);
            } catch (DateTimeParseException e) {
                problems.add(raw.label("delivery_date") + ": '" + clip(date) + "' is not an ISO date (YYYY-MM-DD)");
            }
        }
        if (!problems.isEmpty()) {
            return new Validated(raw, null, reason(raw, problems));
        }
        Map<String, String> attributes = new LinkedHashMap<>();
        f.forEach((name, value) -> {
            if (!KNOWN.contains(name) && name != null && !name.isBlank()) {
                attributes.put(name, value);
            }
        });
        return new Validated(raw, new DeliveryAdvice(sourceId, sourceVersion, sku, quantity, deliveryDate, attributes),
                null);
    }

    /** true or false (any case, around spaces; empty or absent is false); null for anything else. */
    private static Boolean flag(String value) {
        String t = trimmed(value);
        if (t == null || t.equalsIgnoreCase("false")) {
            return false;
        }
        return t.equalsIgnoreCase("true") ? Boolean.TRUE : null;
    }

    /**
     * The item a record names, as validation reads it (its {@code source_id} trimmed), or null when it names none;
     * for whoever must know a record's item before applying it (the item locks taken in order).
     */
    public static String sourceIdOf(RawRecord record) {
        return trimmed(record.fields().get("source_id"));
    }

    private static String trimmed(String value) {
        if (value == null) {
            return null;
        }
        String t = value.trim();
        return t.isEmpty() ? null : t;
    }

    /**
     * The record's reason: where it is and its first {@link #MAX_PROBLEMS} problems, at most {@link #MAX_REASON}
     * characters. A record of many fields may have four problems a field, each a sentence: uncut, a batch's answer
     * could be ten times its body.
     */
    private static String reason(RawRecord raw, List<String> problems) {
        String listed = String.join("; ", problems.subList(0, Math.min(problems.size(), MAX_PROBLEMS)));
        if (problems.size() > MAX_PROBLEMS) {
            listed += "; and " + (problems.size() - MAX_PROBLEMS) + " more problem(s)";
        }
        return SafeText.of(raw.where() + ": " + listed, MAX_REASON);
    }

    private static String clip(String value) {
        return SafeText.of(value, 40);
    }

    /**
     * Said of a C1 control character (U+0080 to U+009F) in a value: no text holds one, but a file in Windows-1252 read
     * as ISO-8859-1 does, where Windows-1252 has its dashes, quotes and euro sign.
     */
    static final String C1_HINT = " (a file in Windows-1252 read as ISO-8859-1 has these where it has dashes, quotes or"
            + " the euro sign: check the supplier's charset, ingestor.suppliers.<CODE>.charset)";

    private static boolean isC1(int c) {
        return c >= 0x80 && c <= 0x9F;
    }
}
