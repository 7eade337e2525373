package dev.ingestor.validation;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

/** CSV with a header row naming the fields; further columns are kept as attributes. */
final class CsvRecordReader implements RecordReader {

    private final CSVParser parser;
    private final Iterator<CSVRecord> records;
    private final List<String> header;
    private long index;

    CsvRecordReader(InputStream in, Charset charset, char delimiter) {
        try {
            parser = CSVFormat.DEFAULT.builder()
                    .setDelimiter(delimiter)
                    .setHeader()
                    .setSkipHeaderRecord(true)
                    .setIgnoreEmptyLines(true)
                    .setTrim(true)
                    .setAllowMissingColumnNames(true)
                    .get()
                    .parse(Decoding.strict(new BufferedInputStream(in, 256 * 1024), charset));
        } catch (IOException | UncheckedIOException | IllegalArgumentException e) {
            throw unreadable(e, 1);
        }
        header = parser.getHeaderNames().stream().map(h -> h.toLowerCase(Locale.ROOT)).toList();
        List<String> missing = DeliveryAdviceValidator.REQUIRED_COLUMNS.stream().filter(c -> !header.contains(c)).toList();
        if (!missing.isEmpty()) {
            throw new UnreadableFileException("the CSV header row " + printable(parser.getHeaderNames())
                    + " lacks the column(s) " + missing + "; expected a header naming "
                    + DeliveryAdviceValidator.REQUIRED_COLUMNS + " (delimiter '" + delimiter + "')");
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
        long line = record.getRecordNumber() + 1; // the header is line 1
        if (record.size() != header.size()) {
            return RawRecord.broken(index, line, "has " + record.size() + " values but the header names " + header.size() + " columns");
        }
        Map<String, String> fields = new LinkedHashMap<>(header.size() * 2);
        for (int i = 0; i < header.size(); i++) {
            fields.put(header.get(i), record.get(i));
        }
        return new RawRecord(index, line, fields, null);
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
                return new UnreadableFileException("the file is not valid text in the supplier's charset (near line " + line + ")", e);
            }
        }
        return new UnreadableFileException("the file cannot be read as CSV near line " + line + ": " + e.getMessage(), e);
    }

    private static String printable(List<String> names) {
        String text = names.toString();
        return text.length() > 200 ? text.substring(0, 200) + "...]" : text;
    }
}
