package dev.ingestor.validation;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.time.format.ResolverStyle;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import dev.ingestor.config.SupplierProperties;
import dev.ingestor.logging.SafeText;

/**
 * A supplier's own file layout turned into the one delivery advice record: renamed fields, dates in the
 * supplier's pattern, numbers with the supplier's separators, defaults, constants and ignored fields. Built once
 * per supplier from {@code ingestor.suppliers.<CODE>.mapping.*}; a setting that cannot work fails the start.
 * The validator then checks the canonical record, and names each problem with the supplier's own field.
 */
final class RecordMapping {

    /** No mapping: the file already uses the record's names, ISO dates and plain whole numbers. */
    public static final RecordMapping NONE = of("", new SupplierProperties.Mapping());

    static final String QUANTITY = "quantity";
    static final String DELIVERY_DATE = "delivery_date";
    private static final int MAX_QUANTITY_LENGTH = 40;
    private static final Pattern PLAIN_NUMBER = Pattern.compile("[+-]?\\d+(\\.\\d+)?");

    private final Map<String, String> renames;
    private final Map<String, String> labels;
    private final List<String> columns;
    private final boolean header;
    private final int skipLines;
    private final char quote;
    private final Character comment;
    private final String datePattern;
    private final DateTimeFormatter dateFormat;
    private final Character decimalSeparator;
    private final Character groupingSeparator;
    /** A quantity written with the grouping separator: groups of three digits after the first, as in 1.200.000. */
    private final Pattern grouped;
    private final Map<String, String> defaults;
    private final Map<String, String> constants;
    private final Set<String> ignore;
    private final List<String> recordsPath;
    /** Nothing to rename, fill, drop or convert: every record is as the reader made it (most suppliers). */
    private final boolean changesNothing;

    private RecordMapping(String property, SupplierProperties.Mapping m) {
        renames = new HashMap<>();
        labels = new HashMap<>();
        m.getFields().forEach((supplierName, field) -> {
            String target = knownField(property + ".fields." + supplierName, field);
            // one record field from two supplier fields would silently keep whichever comes last in the file
            String other = labels.get(target);
            if (other != null) {
                throw new IllegalStateException(property + ".fields." + other + " and " + property + ".fields."
                        + supplierName + " both name the record field " + target + "; map only one of them");
            }
            if (renames.put(supplierName.toLowerCase(Locale.ROOT), target) != null) {
                throw new IllegalStateException(property + ".fields." + supplierName + " is mapped twice"
                        + " (field names are compared without case)");
            }
            labels.put(target, supplierName);
        });
        header = m.isHeader();
        columns = m.getColumns().stream().map(c -> knownField(property + ".columns", c)).toList();
        List<String> repeated = columns.stream().filter(c -> columns.indexOf(c) != columns.lastIndexOf(c)).distinct()
                .toList();
        if (!repeated.isEmpty()) {
            throw new IllegalStateException(property + ".columns names " + repeated + " more than once");
        }
        if (!header && columns.isEmpty()) {
            throw new IllegalStateException(property + ".header is false, so " + property
                    + ".columns must name the record field of each column");
        }
        if (!header) {
            for (int i = 0; i < columns.size(); i++) {
                labels.putIfAbsent(columns.get(i), "column " + (i + 1) + " (" + columns.get(i) + ")");
            }
        }
        if (m.getSkipLines() < 0) {
            throw new IllegalStateException(property + ".skip-lines must be 0 or more, not " + m.getSkipLines());
        }
        skipLines = m.getSkipLines();
        quote = m.getQuote();
        comment = m.getComment();
        // either would pass the start and then fail (or misread) every file of the supplier
        if (quote == '\n' || quote == '\r' || (comment != null && (comment == '\n' || comment == '\r'))) {
            throw new IllegalStateException(property + (quote == '\n' || quote == '\r' ? ".quote" : ".comment")
                    + " is a line break; a CSV record ends there");
        }
        if (comment != null && comment == quote) {
            throw new IllegalStateException(property + ".comment and " + property + ".quote are both '" + quote + "'");
        }
        datePattern = m.getDatePattern() == null || m.getDatePattern().isBlank() ? null : m.getDatePattern();
        dateFormat = datePattern == null ? null : dateFormat(property + ".date-pattern", datePattern);
        decimalSeparator = m.getDecimalSeparator();
        groupingSeparator = m.getGroupingSeparator();
        char decimal = decimalSeparator == null ? '.' : decimalSeparator;
        if (groupingSeparator != null && groupingSeparator == decimal) {
            throw new IllegalStateException(
                    property + ".decimal-separator" + (decimalSeparator == null ? " (unset: '.')" : "")
                            + " and " + property + ".grouping-separator are both '" + decimal + "'");
        }
        grouped = groupingSeparator == null
                ? null
                : Pattern.compile("[+-]?[1-9]\\d{0,2}(" + Pattern.quote(
                        groupingSeparator.toString()) + "\\d{3})+(" + Pattern.quote(String.valueOf(decimal))
                        + "\\d+)?");
        defaults = checkedFields(property + ".defaults", m.getDefaults());
        constants = checkedFields(property + ".constants", m.getConstants());
        if (!header) {
            List<String> missing = DeliveryAdviceValidator.REQUIRED_COLUMNS.stream()
                    .filter(c -> !columns.contains(c) && !supplies(c)).toList();
            if (!missing.isEmpty()) {
                throw new IllegalStateException(property + ".columns " + columns + " lacks the record field(s) "
                        + missing + ", and no default or constant supplies them");
            }
        }
        ignore = m.getIgnore().stream().map(n -> n.toLowerCase(Locale.ROOT)).collect(Collectors.toUnmodifiableSet());
        recordsPath = m.getRecordsPath() == null || m.getRecordsPath().isBlank()
                ? List.of()
                : List.of(m.getRecordsPath().split("\\."));
        if (recordsPath.stream().anyMatch(String::isEmpty)) {
            throw new IllegalStateException(property + ".records-path '" + m.getRecordsPath()
                    + "' has an empty step; write the field names separated by dots, e.g. order.lines");
        }
        changesNothing = renames.isEmpty() && labels.isEmpty() && ignore.isEmpty() && defaults.isEmpty()
                && constants.isEmpty() && dateFormat == null && decimalSeparator == null && groupingSeparator == null;
    }

    /** The mapping of supplier {@code code}; throws, naming the property, when a setting cannot work. */
    public static RecordMapping of(String code, SupplierProperties.Mapping mapping) {
        return new RecordMapping("ingestor.suppliers." + code + ".mapping", mapping);
    }

    /**
     * The mapping of supplier {@code code}, also checked against the supplier's CSV delimiter: a quote or comment
     * character equal to it passes alone and then makes every file of the supplier unreadable.
     */
    public static RecordMapping of(String code, SupplierProperties supplier) {
        RecordMapping mapping = of(code, supplier.getMapping());
        char delimiter = supplier.getCsvDelimiter();
        String property = "ingestor.suppliers." + code;
        if (mapping.quote == delimiter) {
            throw new IllegalStateException(
                    property + ".mapping.quote and " + property + ".csv-delimiter are both '" + delimiter + "'");
        }
        if (mapping.comment != null && mapping.comment == delimiter) {
            throw new IllegalStateException(
                    property + ".mapping.comment and " + property + ".csv-delimiter are both '" + delimiter + "'");
        }
        return mapping;
    }

    private static String knownField(String property, String field) {
        String name = field == null ? "" : field.trim().toLowerCase(Locale.ROOT);
        if (!DeliveryAdviceValidator.KNOWN.contains(name)) {
            throw new IllegalStateException(property + ": '" + field + "' is not a record field; expected one of "
                    + DeliveryAdviceValidator.KNOWN.stream().sorted().toList());
        }
        return name;
    }

    private static Map<String, String> checkedFields(String property, Map<String, String> values) {
        Map<String, String> checked = new LinkedHashMap<>();
        values.forEach((field, value) -> {
            String name = knownField(property + "." + field, field);
            String refused = refusedByTheRecordRules(name, value);
            if (refused != null) {
                throw new IllegalStateException(property + "." + field + ": the record rules refuse it (" + refused
                        + "); write it in the record's format, e.g. ISO dates 2026-12-24 and plain whole numbers");
            }
            checked.put(name, value);
        });
        return Map.copyOf(checked);
    }

    /**
     * The validator's problem with {@code value} as {@code field} of an otherwise good record, or null. A default
     * or constant the validator refuses would quarantine every record it fills.
     */
    private static String refusedByTheRecordRules(String field, String value) {
        Map<String, String> fields = new LinkedHashMap<>(Map.of("source_id", "S", "sku", "S", "quantity", "1",
                "delivery_date", "2026-12-24"));
        fields.put(field, value);
        Validated validated = DeliveryAdviceValidator.validate(new RawRecord(1, -1, fields, null));
        if (validated.reason() == null) {
            return null;
        }
        String where = validated.raw().where() + ": ";
        return validated.reason().startsWith(where) ? validated.reason().substring(where.length()) : validated.reason();
    }

    /**
     * A strict formatter: 31.02.2026 is refused, not moved to the 28th. Strict resolving needs the year-of-era
     * letter {@code y} as the proleptic year {@code u}, or every date without an era would be refused.
     */
    private static DateTimeFormatter dateFormat(String property, String pattern) {
        StringBuilder strict = new StringBuilder(pattern.length());
        boolean literal = false;
        for (char c : pattern.toCharArray()) {
            literal ^= c == '\'';
            strict.append(!literal && c == 'y' && pattern.indexOf('G') < 0 ? 'u' : c);
        }
        try {
            DateTimeFormatter format = DateTimeFormatter.ofPattern(strict.toString(), Locale.ROOT)
                    .withResolverStyle(ResolverStyle.STRICT);
            LocalDate.parse(format.format(LocalDate.of(2026, 12, 24)), format);
            return format;
        } catch (IllegalArgumentException | java.time.DateTimeException e) {
            throw new IllegalStateException(
                    property + ": '" + pattern + "' is not a date pattern (" + e.getMessage() + ")", e);
        }
    }

    boolean hasHeader() { return header; }
    List<String> columns() { return columns; }
    int skipLines() { return skipLines; }
    char quote() { return quote; }
    Character comment() { return comment; }
    List<String> recordsPath() { return recordsPath; }

    /** The record field a supplier's column or JSON field (lower case) becomes. */
    String recordName(String supplierName) {
        return renames.getOrDefault(supplierName, supplierName);
    }

    /** Record fields the supplier need not send, because a default or constant supplies them. */
    boolean supplies(String field) {
        return defaults.containsKey(field) || constants.containsKey(field);
    }

    /** The record of {@code raw}, read in the supplier's names, in the record's names and formats. */
    RawRecord apply(RawRecord raw) {
        // a map's names are distinct, so without renames no record field can be set twice
        if (raw.isBroken() || changesNothing) {
            return raw;
        }
        String twice = fieldSetTwice(raw.fields().keySet());
        if (twice != null) {
            return RawRecord.broken(raw.index(), raw.line(), twice);
        }
        Map<String, String> fields = new LinkedHashMap<>();
        raw.fields().forEach((name, value) -> {
            if (name == null || !ignore.contains(name)) {
                fields.put(name == null ? null : recordName(name), value);
            }
        });
        Map<String, String> problems = new LinkedHashMap<>();
        normaliseQuantity(fields, problems);
        normaliseDate(fields, problems);
        // defaults and constants are configured in the record's own formats (ISO dates, plain numbers)
        defaults.forEach((field, value) -> {
            String sent = fields.get(field);
            if (sent == null || sent.isBlank()) {
                fields.put(field, value);
            }
        });
        fields.putAll(constants);
        constants.keySet().forEach(problems::remove);
        return new RawRecord(raw.index(), raw.line(), fields, null, labels, problems);
    }

    /**
     * Why two of the supplier's fields {@code supplierNames} (lower case) would become the same record field, or
     * null: a renamed field must not silently lose to (or win over) a field that already has the record's name.
     */
    String fieldSetTwice(Collection<String> supplierNames) {
        Map<String, String> from = new HashMap<>();
        for (String name : supplierNames) {
            if (name == null || name.isBlank() || ignore.contains(name)) {
                continue;
            }
            String field = recordName(name);
            String earlier = from.putIfAbsent(field, name);
            if (earlier != null) {
                return "has both " + supplierLabel(earlier) + " and " + supplierLabel(name) + " for the record field "
                        + field + "; the supplier's mapping must rename or ignore one of them";
            }
        }
        return null;
    }

    private String supplierLabel(String name) {
        String target = renames.get(name);
        return target == null ? SafeText.of(name, 60) : labels.get(target);
    }

    private void normaliseQuantity(Map<String, String> fields, Map<String, String> problems) {
        String sent = fields.get(QUANTITY);
        if ((decimalSeparator == null && groupingSeparator == null) || sent == null || sent.isBlank()) {
            return;
        }
        String text = sent.trim();
        boolean wellGrouped = true;
        if (groupingSeparator != null && text.indexOf(groupingSeparator) >= 0) {
            // only where it groups thousands: 2.5 under grouping '.' is no 25, and 1.2.3 no 123
            wellGrouped = text.length() <= MAX_QUANTITY_LENGTH && grouped.matcher(text).matches();
            text = text.replace(groupingSeparator.toString(), "");
        }
        if (decimalSeparator != null && decimalSeparator != '.') {
            // a '.' that is not the declared grouping separator is no part of this supplier's numbers
            text = text.replace('.', '\u0000').replace(decimalSeparator.charValue(), '.');
        }
        // BigDecimal alone would read exponents (1E999999999 is a billion digits when written out) and any
        // length: only digits with at most one decimal point, as short as any real quantity, are parsed
        if (wellGrouped && text.length() <= MAX_QUANTITY_LENGTH && PLAIN_NUMBER.matcher(text).matches()) {
            // 5,0 is five pieces; 5,5 is no whole number and is refused with the supplier's own text
            BigDecimal whole = new BigDecimal(text).stripTrailingZeros();
            if (whole.scale() <= 0) {
                fields.put(QUANTITY, whole.toPlainString());
                return;
            }
        }
        problems.put(QUANTITY,
                label(QUANTITY) + ": '" + SafeText.of(sent, 40) + "' is not a whole number greater than 0"
                        + " (decimal separator '" + (decimalSeparator == null ? '.' : decimalSeparator) + "'"
                        + (groupingSeparator == null ? "" : ", grouping separator '" + groupingSeparator + "'") + ")");
    }

    private void normaliseDate(Map<String, String> fields, Map<String, String> problems) {
        String sent = fields.get(DELIVERY_DATE);
        if (dateFormat == null || sent == null || sent.isBlank()) {
            return;
        }
        try {
            fields.put(DELIVERY_DATE, LocalDate.parse(sent.trim(), dateFormat).toString());
        } catch (java.time.format.DateTimeParseException e) {
            problems.put(DELIVERY_DATE, label(DELIVERY_DATE) + ": '" + SafeText.of(sent, 40)
                    + "' is not a date of the pattern " + datePattern);
        }
    }

    /** The supplier's own name of a record field, as problems name it. */
    String label(String field) {
        return labels.getOrDefault(field, field);
    }

    /** For messages about a file: the supplier's names of the record fields in {@code fields}. */
    List<String> labels(List<String> fields) {
        List<String> named = new ArrayList<>(fields.size());
        fields.forEach(f -> named.add(label(f)));
        return named;
    }
}
