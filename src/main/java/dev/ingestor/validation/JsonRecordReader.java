package dev.ingestor.validation;

import java.io.BufferedReader;
import java.io.CharArrayWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.ingestor.config.JsonNesting;
import dev.ingestor.logging.SafeText;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamWriteFeature;
import tools.jackson.core.TokenStreamContext;
import tools.jackson.core.exc.JacksonIOException;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.exc.UnexpectedEndOfInputException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.util.TokenBuffer;

/**
 * JSON records: an array of objects ({@code [ {...}, {...} ]}), or JSON Lines (one object per line). An array
 * with a syntax error cannot be read further and makes the file unreadable; a broken JSON line is one bad
 * record and the rest of the file is still read. With a records path ({@code order.lines}) the file is one
 * document and its records are that array, streamed as an array is.
 */
final class JsonRecordReader implements RecordReader {

    /**
     * Decimals as written ({@code 12500000.50}, not the double {@code 1.25000005E7}; {@code 10.0} is a whole 10), as
     * an item of an item batch is read.
     */
    private static final ObjectMapper MAPPER = JsonMapper.builder(JsonNesting.textBuilder().build())
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS).build();

    /** Parsers whose strings and names may be as long as a record may be, by record size limit. */
    private static final Map<Long, JsonFactory> FACTORIES = new ConcurrentHashMap<>();

    private final Reader reader;
    private final Iterator<RawRecord> records;
    private final RecordLimits limits;
    private final JsonFactory factory;
    /** The names leading to the records inside the document; empty for an array or JSON Lines. */
    private final List<String> recordsPath;
    /** Between the file and the parser of an array; null for JSON Lines, whose lines are cut as they are read. */
    private JsonStringLimit strings;
    private long index;

    JsonRecordReader(InputStream in, Charset charset) {
        this(in, charset, List.of(), RecordLimits.DEFAULT);
    }

    JsonRecordReader(InputStream in, Charset charset, List<String> recordsPath) {
        this(in, charset, recordsPath, RecordLimits.DEFAULT);
    }

    /**
     * With a records path, the file is one document and the records are the array at that path inside it. A record
     * over {@code limits} is read past without being built, and comes out as one quarantined naming the limit.
     */
    JsonRecordReader(InputStream in, Charset charset, List<String> recordsPath, RecordLimits limits) {
        this.limits = limits;
        this.factory = factory(limits.maxSize());
        this.recordsPath = recordsPath;
        JsonParser document = null;
        try {
            int buffer = ReadBuffers.size(in);
            PushbackReader pushback = new PushbackReader(new BufferedReader(Decoding.strict(in, charset), buffer), 1);
            int first = firstSignificant(pushback);
            reader = pushback;
            if (!recordsPath.isEmpty() && first == '{') {
                document = arrayParser(pushback);
                document.nextToken(); // START_OBJECT
                descend(document, recordsPath);
                records = new ArrayRecords(document);
            } else if (!recordsPath.isEmpty() && first != -1) {
                throw new UnreadableFileException("the file is not a JSON document: it starts with '" + (char) first
                        + "', expected '{' holding the records at " + String.join(".", recordsPath));
            } else if (first == '[') {
                document = arrayParser(pushback);
                document.nextToken(); // START_ARRAY
                records = new ArrayRecords(document);
            } else if (first == '{') {
                FirstLineDepth firstLine = new FirstLineDepth(pushback);
                records = new LineRecords(new BoundedLines(firstLine, limits.maxSize()), firstLine);
            } else if (first == -1) {
                throw new UnreadableFileException("the file holds no JSON");
            } else {
                throw new UnreadableFileException("the file is not JSON: it starts with '" + (char) first
                        + "', expected '[' (an array of records) or '{' (JSON Lines)");
            }
        } catch (IOException | JacksonException e) {
            throw unreadable(e,
                    document == null ? "at the start" : "at line " + document.currentLocation().getLineNr());
        }
    }

    /**
     * A factory whose parsers take a string or name as long as the limit (and the strings of an array are cut there,
     * {@link JsonStringLimit}), but no longer: a number or other token over it fails the parser before it is built.
     */
    private static JsonFactory factory(long maxSize) {
        return FACTORIES.computeIfAbsent(maxSize, size -> {
            int most = (int) Math.min(Integer.MAX_VALUE - 64, size + 16);
            return JsonNesting.textBuilder().streamReadConstraints(JsonNesting.READ.rebuild()
                    .maxStringLength(most).maxNameLength(most).build()).streamWriteConstraints(JsonNesting.WRITE)
                    .build();
        });
    }

    private JsonParser arrayParser(Reader text) throws IOException {
        strings = new JsonStringLimit(text, limits.maxSize());
        return factory.createParser(ObjectReadContext.empty(), strings);
    }

    /**
     * Reads the value at the parser's current token as a record, copying it token by token while it stays within the
     * limits: past them, the rest of it is read over without being built (strings skipped, never made), and it comes
     * out as a record quarantined naming the limit, keeping its first characters ({@code start}, or the part copied).
     * Only the top level's fields are counted: they are the record's fields, nested values become their text. A name
     * twice in one object, the record's or one inside it, quarantines the record: a tree would keep the last of the
     * two values silently, a record other than the one sent.
     */
    private RawRecord boundedRecord(JsonParser parser, long line, String start) throws IOException {
        long from = parser.currentTokenLocation().getCharOffset();
        TokenBuffer copy = TokenBuffer.forBuffering(parser, parser.objectReadContext());
        int depth = 0;
        long fields = 0;
        boolean over = false;
        // the record's field names, read in any case
        Set<String> names = new HashSet<>();
        // the names of each object open inside the record, as written, by depth (null for an array, or once the
        // record is over a limit or has a name twice): made at the first nested value, so a flat record makes none
        List<Set<String>> inside = null;
        String twice = null;
        String twiceInside = null;
        do {
            JsonToken token = parser.currentToken();
            if (token.isStructStart()) {
                depth++;
                if (depth > 1) {
                    inside = inside == null ? new ArrayList<>() : inside;
                    boolean named = token == JsonToken.START_OBJECT && !over && twice == null && twiceInside == null;
                    inside.add(named ? new HashSet<>() : null);
                }
            } else if (token.isStructEnd()) {
                if (depth > 1) {
                    inside.remove(inside.size() - 1);
                }
                depth--;
            } else if (token == JsonToken.PROPERTY_NAME && depth == 1) {
                fields++;
                if (twice == null && !over && !names.add(parser.currentName().toLowerCase(Locale.ROOT))) {
                    twice = parser.currentName();
                }
            } else if (token == JsonToken.PROPERTY_NAME) {
                Set<String> open = inside.get(depth - 2);
                if (open != null && twice == null && twiceInside == null && !over
                        && !open.add(parser.currentName())) {
                    twiceInside = pathInside(parser, depth);
                }
            }
            if (!over && (fields > limits.maxFields()
                    || parser.currentLocation().getCharOffset() - from > limits.maxSize())) {
                over = true;
            }
            if (!over) {
                copy.copyCurrentEvent(parser);
            }
        } while (depth > 0 && parser.nextToken() != null);
        long to = parser.currentLocation().getCharOffset();
        long dropped = strings == null ? 0 : strings.droppedBefore(from, to);
        index++;
        if (over || dropped > 0) {
            return limits.overLimit(index, line, to - from + dropped, fields, start != null ? start : text(copy));
        }
        if (twice != null) {
            return RawRecord.namedTwice(index, line, twice);
        }
        if (twiceInside != null) {
            return RawRecord.namedTwiceInside(index, line, twiceInside);
        }
        try {
            return RawRecord.ofJson(MAPPER.readTree(copy.asParser()), index, line);
        } catch (NumberFormatException e) {
            // a decimal whose exponent is past what a BigDecimal holds (1e-2147483649): the record's problem
            return RawRecord.broken(index, line, "holds a number out of range: " + SafeText.of(e.getMessage(), 80));
        }
    }

    /**
     * Where the name the parser stands on is inside its record, the object that holds it {@code depth} objects and
     * arrays deep: {@code x.y[0].a}.
     */
    private static String pathInside(JsonParser parser, int depth) {
        StringBuilder path = new StringBuilder(parser.currentName());
        boolean startsWithIndex = false;
        TokenStreamContext context = parser.streamReadContext();
        for (int level = depth; level > 1; level--) {
            context = context.getParent();
            boolean index = context.inArray();
            String step = index ? "[" + context.getCurrentIndex() + "]" : context.currentName();
            path.insert(0, startsWithIndex ? step : step + ".");
            startsWithIndex = index;
        }
        return path.toString();
    }

    /** The JSON of the tokens copied so far, as far as they go. */
    private static String text(TokenBuffer copy) {
        CharArrayWriter out = new CharArrayWriter();
        try (JsonGenerator generator = MAPPER.writer().without(StreamWriteFeature.AUTO_CLOSE_CONTENT)
                .createGenerator(out)) {
            copy.serialize(generator);
        } catch (RuntimeException e) {
            // what was written before the copy ran out is the start shown
        }
        return out.toString();
    }

    /**
     * Walks from the document's START_OBJECT down {@code path} to the START_ARRAY of the records, skipping
     * whatever else the document holds without building it in memory: only the records are read as trees.
     */
    private static void descend(JsonParser parser, List<String> path) throws IOException {
        for (int step = 0; step < path.size(); step++) {
            String where = String.join(".", path.subList(0, step + 1));
            boolean found = false;
            for (JsonToken token = parser.nextToken(); token == JsonToken.PROPERTY_NAME; token = parser.nextToken()) {
                JsonToken value = parser.nextToken();
                if (parser.currentName().equals(path.get(step))) {
                    JsonToken expected = step == path.size() - 1 ? JsonToken.START_ARRAY : JsonToken.START_OBJECT;
                    if (value != expected) {
                        throw new UnreadableFileException("the JSON document holds no "
                                + (expected == JsonToken.START_ARRAY
                                        ? "array"
                                        : "object")
                                + " at " + where + " (line " + parser.currentLocation().getLineNr() + ")");
                    }
                    found = true;
                    break;
                }
                parser.skipChildren();
            }
            if (!found) {
                throw new UnreadableFileException("the JSON document holds nothing at " + where);
            }
        }
    }

    private static int firstSignificant(PushbackReader in) throws IOException {
        int c;
        do {
            c = in.read();
        } while (c == ' ' || c == '\n' || c == '\r' || c == '\t');
        if (c != -1) {
            in.unread(c);
        }
        return c;
    }

    @Override
    public boolean hasNext() {
        return records.hasNext();
    }

    @Override
    public RawRecord next() {
        return records.next();
    }

    @Override
    public void close() {
        try {
            reader.close();
        } catch (IOException ignored) {
            // read-only
        }
    }

    private static UnreadableFileException unreadable(Exception e, String where) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CharacterCodingException) {
                // the decoder's own line: the parser's stands where its buffer was read, or before
                return new UnreadableFileException("the file is not valid text in the supplier's charset ("
                        + (t instanceof LineCountingDecoder.NotText notText ? notText.getMessage() : where) + ")", e);
            }
        }
        StreamConstraintsException breach = JsonLimitBreach.in(e);
        if (breach != null) {
            // a record over a limit ends an array or a document: the parser cannot be read on after it
            return new UnreadableFileException("the file cannot be read as JSON " + where + ", which holds "
                    + JsonLimitBreach.of(breach), e);
        }
        String detail = e instanceof JacksonException j ? j.getOriginalMessage() : e.getMessage();
        return new UnreadableFileException("the file cannot be read as JSON " + where + ": " + detail, e);
    }

    private final class ArrayRecords implements Iterator<RawRecord> {
        private final JsonParser parser;
        private JsonToken next;

        /** {@code parser} stands on the array's START_ARRAY. */
        ArrayRecords(JsonParser parser) {
            this.parser = parser;
            advance();
        }

        private void advance() {
            try {
                next = parser.nextToken();
                if (next == null) {
                    throw new UnreadableFileException("the JSON array is not closed: the file ends before ']'");
                }
                if (next == JsonToken.END_ARRAY) {
                    finishDocument();
                }
            } catch (IOException | JacksonException e) {
                throw unreadable(e, "at line " + parser.currentLocation().getLineNr());
            }
        }

        /**
         * Reads the rest of the file after the records: the objects that hold them (their other fields skipped,
         * not built) and then nothing but white space. A file that goes on after its document is not the
         * document a supplier meant to send, whatever the records before it were; nor is one that names a step of
         * the records path again beside it ({@code "lines": [...], "lines": [...]}): the path would lead to two
         * arrays, and the records of the second would be passed over unseen.
         */
        private void finishDocument() throws IOException {
            while (!parser.streamReadContext().inRoot()) {
                JsonToken token = parser.nextToken();
                if (token == null) {
                    throw new UnreadableFileException("the JSON document is not closed: the file ends inside it");
                }
                if (token == JsonToken.PROPERTY_NAME) {
                    refuseRepeatedStep();
                }
                if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
                    parser.skipChildren();
                }
            }
            if (parser.nextToken() != null) {
                throw new UnreadableFileException("the file goes on after its JSON document (line "
                        + parser.currentLocation().getLineNr() + "): one document is read, nothing may follow it");
            }
        }

        /**
         * The parser stands on a field name of an object that holds the records, at the depth of one step of the
         * path (whatever lies deeper is skipped): that step's name again is the path's second match.
         */
        private void refuseRepeatedStep() {
            int depth = parser.streamReadContext().getNestingDepth();
            if (depth < 1 || depth > recordsPath.size() || !parser.currentName().equals(recordsPath.get(depth - 1))) {
                return;
            }
            throw new UnreadableFileException("the JSON document holds "
                    + String.join(".", recordsPath.subList(0, depth)) + " twice (the second on line "
                    + parser.currentLocation().getLineNr() + "): the supplier's mapping.records-path "
                    + String.join(".", recordsPath) + " must lead to one array of records");
        }

        @Override
        public boolean hasNext() {
            return next != JsonToken.END_ARRAY;
        }

        @Override
        public RawRecord next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            long line = parser.currentLocation().getLineNr();
            RawRecord record;
            try {
                record = boundedRecord(parser, line, null);
            } catch (IOException | JacksonException e) {
                throw unreadable(e, "at line " + parser.currentLocation().getLineNr());
            }
            advance();
            return record;
        }
    }

    /**
     * {@code record}, unless its line goes on after it: a line is one record, and a second value on it (two lines run
     * together, as a file joined to one whose last line had no line break) or anything else after it would otherwise
     * be passed over unseen. Then the record is quarantined, its number kept.
     */
    private RawRecord onlyValueOf(JsonParser parser, RawRecord record, long line) {
        String after;
        try {
            if (parser.nextToken() == null) {
                return record;
            }
            after = "another JSON value";
        } catch (JacksonException e) {
            after = "text that is not JSON";
        }
        return RawRecord.broken(record.index(), line, "holds " + after + " after its record, at column "
                + parser.currentTokenLocation().getColumnNr() + ": a line of JSON Lines is one record");
    }

    private final class LineRecords implements Iterator<RawRecord> {
        private final BoundedLines lines;
        private final FirstLineDepth firstLine;
        private BoundedLines.Line pending;
        private long lineNumber;

        LineRecords(BoundedLines lines, FirstLineDepth firstLine) {
            this.lines = lines;
            this.firstLine = firstLine;
            advance();
        }

        private void advance() {
            try {
                do {
                    pending = lines.next();
                    lineNumber++;
                } while (pending != null && !pending.cut() && pending.text().isBlank());
            } catch (IOException | JacksonException e) {
                throw unreadable(e, "at line " + lineNumber);
            }
        }

        @Override
        public boolean hasNext() {
            return pending != null;
        }

        @Override
        public RawRecord next() {
            if (pending == null) {
                throw new NoSuchElementException();
            }
            BoundedLines.Line text = pending;
            long line = lineNumber;
            advance();
            if (text.cut()) {
                // the first characters kept cannot tell where the line ends; the whole line was watched
                if (index == 0 && firstLine.endsInsideValue()) {
                    throw severalLines(line);
                }
                index++;
                return limits.overLimit(index, line, text.length(), 0, text.text());
            }
            try (JsonParser parser = factory.createParser(ObjectReadContext.empty(), text.text())) {
                parser.nextToken();
                RawRecord record = boundedRecord(parser, line, text.text());
                return onlyValueOf(parser, record, line);
            } catch (JacksonIOException e) {
                // the text itself could not be read (its charset), not one record's JSON
                throw unreadable(e, "at line " + line);
            } catch (JacksonException e) {
                // a first line ending inside its value, not inside a string (a line break in a string value is one
                // broken record): {"lines": [ on a line of its own, the records after it one a line, an exporter's
                // usual output, read as JSON Lines would apply some records and quarantine the others
                if (index == 0 && e instanceof UnexpectedEndOfInputException end
                        && end.getTokenBeingDecoded() != JsonToken.VALUE_STRING) {
                    throw severalLines(line);
                }
                index++;
                if (e instanceof StreamConstraintsException breach) {
                    return RawRecord.broken(index, line, "holds " + JsonLimitBreach.of(breach));
                }
                return RawRecord.broken(index, line, "is not valid JSON: " + e.getOriginalMessage());
            } catch (IOException | UncheckedIOException e) {
                throw unreadable(e, "at line " + line);
            }
        }

        private static UnreadableFileException severalLines(long line) {
            return new UnreadableFileException("line " + line + " ends inside its JSON value: the file is one JSON"
                    + " document over several lines, not JSON Lines (one whole record on each line); an array of"
                    + " records is read as it is, and records inside an object need the supplier's"
                    + " mapping.records-path");
        }
    }
}
