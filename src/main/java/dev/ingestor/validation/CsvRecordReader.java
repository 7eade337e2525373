package dev.ingestor.validation;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;

import dev.ingestor.logging.SafeText;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

/**
 * CSV with a header row naming the fields (or, per the supplier's mapping, columns by position); further
 * columns are kept as attributes.
 */
final class CsvRecordReader implements RecordReader {

    private final CSVParser parser;
    private final Iterator<CSVRecord> records;
    private final List<String> header;
    private final RecordMapping mapping;
    private final RecordLimits limits;
    private final CsvRecordLimit cutter;
    private final char delimiter;
    private long index;
    /** Line breaks inside the values of records cut so far, which the parser never saw. */
    private long droppedLineBreaks;

    CsvRecordReader(InputStream in, Charset charset, char delimiter) {
        this(in, charset, delimiter, RecordMapping.NONE, RecordLimits.DEFAULT);
    }

    /**
     * Field names are the header's (in lower case) or, without a header, the mapping's columns; the mapping
     * renames them later ({@link RecordMapping#apply}), so the header check here already looks through it.
     */
    CsvRecordReader(InputStream in, Charset charset, char delimiter, RecordMapping mapping, RecordLimits limits) {
        this.mapping = mapping;
        this.limits = limits;
        this.delimiter = delimiter;
        try {
            int buffer = ReadBuffers.size(in);
            BufferedReader lines = new BufferedReader(Decoding.strict(new BufferedInputStream(in, buffer), charset),
                    Math.min(buffer, 64 * 1024));
            for (int i = 0; i < mapping.skipLines(); i++) {
                skipLine(lines);
            }
            cutter = new CsvRecordLimit(lines, delimiter, mapping.quote(), mapping.comment(), limits,
                    Math.min(buffer, 16 * 1024));
            Reader text = cutter;
            // spaces before a value are no part of it, so a quote after them still opens it (1, "SKU-1", 10):
            // without ignoring them the quotes would be kept in the value; CsvRecordLimit follows the same rule.
            // White space inside the quotes is trimmed here (trimmed), after the line breaks in it are counted.
            CSVFormat.Builder format = CSVFormat.DEFAULT.builder()
                    .setDelimiter(delimiter)
                    .setQuote(mapping.quote())
                    .setCommentMarker(mapping.comment())
                    .setIgnoreEmptyLines(true)
                    .setIgnoreSurroundingSpaces(true)
                    .setAllowMissingColumnNames(true);
            if (mapping.hasHeader()) {
                format.setHeader().setSkipHeaderRecord(true);
            }
            parser = format.get().parse(text);
        } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
            throw unreadable(e, mapping.skipLines() + 1);
        }
        if (!mapping.hasHeader()) {
            header = mapping.columns();
        } else {
            List<String> names = trimmed(parser.getHeaderNames());
            if (!names.isEmpty() && cutter.marker().equals(names.get(names.size() - 1))) {
                CsvRecordLimit.Cut cut = cutter.nextCut();
                throw new UnreadableFileException(cut.fields() > limits.maxFields()
                        ? "the CSV header row names more than " + limits.maxFields() + " columns, the limit ("
                                + limits.fieldsProperty() + "): " + cut.fields() + " columns"
                        : "the CSV header row is larger than the limit of " + limits.maxSize() + " characters ("
                                + limits.sizeProperty() + "): " + cut.size() + " characters");
            }
            header = names.stream().map(h -> h.toLowerCase(Locale.ROOT)).toList();
            String twice = mapping.fieldSetTwice(header);
            if (twice != null) {
                throw new UnreadableFileException(
                        "the CSV header row " + printable(names) + " " + twice);
            }
            List<String> named = header.stream().map(mapping::recordName).toList();
            List<String> missing = DeliveryAdviceValidator.REQUIRED_COLUMNS.stream()
                    .filter(c -> !named.contains(c) && !mapping.supplies(c)).toList();
            if (!missing.isEmpty()) {
                throw new UnreadableFileException("the CSV header row " + printable(names)
                        + " lacks the column(s) " + mapping.labels(missing) + "; expected a header naming "
                        + mapping.labels(DeliveryAdviceValidator.REQUIRED_COLUMNS) + " (delimiter '" + delimiter
                        + "')");
            }
        }
        records = parser.iterator();
    }

    @Override
    public boolean hasNext() {
        try {
            return records.hasNext();
        } catch (UncheckedIOException | IllegalStateException e) {
            throw unreadable(e, parser.getCurrentLineNumber());
        }
    }

    @Override
    public RawRecord next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        CSVRecord record;
        try {
            record = records.next();
        } catch (UncheckedIOException | IllegalStateException e) {
            throw unreadable(e, parser.getCurrentLineNumber());
        }
        index++;
        long line = lineOf(record) + droppedLineBreaks;
        List<String> values = trimmed(record.toList());
        if (!values.isEmpty() && cutter.marker().equals(values.get(values.size() - 1))) {
            CsvRecordLimit.Cut cut = cutter.nextCut();
            if (cut != null) {
                droppedLineBreaks += cut.droppedLineBreaks();
                String start = String.join(String.valueOf(delimiter), values.subList(0, values.size() - 1));
                return limits.overLimit(index, line, cut.size(), cut.fields(), start);
            }
        }
        if (values.size() != header.size()) {
            return RawRecord.broken(index, line, "has " + values.size() + " values but the "
                    + (mapping.hasHeader() ? "header names " : "supplier's mapping names ") + header.size()
                    + " columns");
        }
        Map<String, String> fields = new LinkedHashMap<>(header.size() * 2);
        for (int i = 0; i < header.size(); i++) {
            if (header.get(i).isEmpty()) {
                // a column the header gives no name (a spreadsheet's trailing ",,"): its empty values are no field;
                // a value in it has no name to be kept under, so its record is quarantined rather than taken without
                if (!values.get(i).isEmpty()) {
                    return RawRecord.broken(index, line, "has a value in column " + (i + 1)
                            + ", which has no name in the header row: '" + SafeText.of(values.get(i), 40) + "'");
                }
                continue;
            }
            fields.put(header.get(i), values.get(i));
        }
        return new RawRecord(index, line, fields, null);
    }

    /**
     * The line a record starts on in the supplier's file, which is where a person looks for it. The parser's own
     * line count sees blank lines, comments and line breaks inside quoted values, but stands on the line the record
     * ends on; the line breaks inside its values take it back to the first. They are counted in the values as read,
     * before the white space around them is trimmed: a quoted value that ends in a line break (a spreadsheet cell's
     * last Alt+Enter) has it on a line of the file all the same.
     */
    private long lineOf(CSVRecord record) {
        long inside = 0;
        for (String value : record) {
            inside += lineBreaksIn(value);
        }
        return mapping.skipLines() + parser.getCurrentLineNumber() - inside;
    }

    /**
     * The values without the white space around them, inside their quotes too (outside them the parser drops it).
     * Only white space: {@code String.trim} would take any control character at a value's edge with it (a NUL-padded
     * export's {@code SKU-1\0\0} read as {@code SKU-1}), which inside the value quarantines its record. The control
     * characters the parser would have taken for white space outside quotes are put back ({@link
     * CsvRecordLimit#restored}).
     */
    private static List<String> trimmed(List<String> values) {
        return values.stream().map(value -> CsvRecordLimit.restored(trim(value))).toList();
    }

    /** {@code value} without the spaces, tabs and line breaks at its ends, as before. */
    private static String trim(String value) {
        int start = 0;
        int end = value.length();
        while (start < end && isTrimmed(value.charAt(start))) {
            start++;
        }
        while (end > start && isTrimmed(value.charAt(end - 1))) {
            end--;
        }
        return value.substring(start, end);
    }

    private static boolean isTrimmed(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }

    private static long lineBreaksIn(String value) {
        long breaks = 0;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            // \r\n is one line break, as the parser counts it
            if (c == '\n' || (c == '\r' && (i + 1 == value.length() || value.charAt(i + 1) != '\n'))) {
                breaks++;
            }
        }
        return breaks;
    }

    /** Reads past one line of any length without keeping it (\n, \r or \r\n ends it, as for readLine). */
    private static void skipLine(BufferedReader lines) throws IOException {
        int c;
        while ((c = lines.read()) != -1 && c != '\n' && c != '\r') {
            // dropped
        }
        if (c == '\r') {
            lines.mark(1);
            if (lines.read() != '\n') {
                lines.reset();
            }
        }
    }

    @Override
    public void close() {
        try {
            parser.close();
        } catch (IOException ignored) {
            // read-only
        }
    }

    private static UnreadableFileException unreadable(Exception e, long line) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CharacterCodingException) {
                // the decoder's own line: the parser's stands where its buffer was read, or before
                String where = t instanceof LineCountingDecoder.NotText notText
                        ? notText.getMessage()
                        : "near line " + line;
                return new UnreadableFileException(
                        "the file is not valid text in the supplier's charset (" + where + ")", e);
            }
        }
        return new UnreadableFileException("the file cannot be read as CSV near line " + line + ": " + e.getMessage(),
                e);
    }

    private static String printable(List<String> names) {
        String text = names.toString();
        return text.length() > 200 ? text.substring(0, 200) + "...]" : text;
    }
}
