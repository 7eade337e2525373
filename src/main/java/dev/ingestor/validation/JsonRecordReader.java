package dev.ingestor.validation;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * JSON records: an array of objects ({@code [ {...}, {...} ]}), or JSON Lines (one object per line). An array
 * with a syntax error cannot be read further and makes the file unreadable; a broken JSON line is one bad
 * record and the rest of the file is still read. With a records path ({@code order.lines}) the file is one
 * document and its records are that array, streamed as an array is.
 */
final class JsonRecordReader implements RecordReader {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final Reader reader;
    private final Iterator<RawRecord> records;
    private long index;

    JsonRecordReader(InputStream in, Charset charset) {
        this(in, charset, List.of());
    }

    /** With a records path, the file is one document and the records are the array at that path inside it. */
    JsonRecordReader(InputStream in, Charset charset, List<String> recordsPath) {
        try {
            PushbackReader pushback = new PushbackReader(new BufferedReader(Decoding.strict(in, charset), 256 * 1024), 1);
            int first = firstSignificant(pushback);
            reader = pushback;
            if (!recordsPath.isEmpty() && first == '{') {
                JsonParser parser = MAPPER.createParser(pushback);
                parser.nextToken(); // START_OBJECT
                descend(parser, recordsPath);
                records = new ArrayRecords(parser);
            } else if (!recordsPath.isEmpty() && first != -1) {
                throw new UnreadableFileException("the file is not a JSON document: it starts with '" + (char) first
                        + "', expected '{' holding the records at " + String.join(".", recordsPath));
            } else if (first == '[') {
                JsonParser parser = MAPPER.createParser(pushback);
                parser.nextToken(); // START_ARRAY
                records = new ArrayRecords(parser);
            } else if (first == '{') {
                records = new LineRecords(new BufferedReader(pushback));
            } else if (first == -1) {
                throw new UnreadableFileException("the file holds no JSON");
            } else {
                throw new UnreadableFileException("the file is not JSON: it starts with '" + (char) first
                        + "', expected '[' (an array of records) or '{' (JSON Lines)");
            }
        } catch (IOException e) {
            throw unreadable(e, "at the start");
        }
    }

    /**
     * Walks from the document's START_OBJECT down {@code path} to the START_ARRAY of the records, skipping
     * whatever else the document holds without building it in memory: only the records are read as trees.
     */
    private static void descend(JsonParser parser, List<String> path) throws IOException {
        for (int step = 0; step < path.size(); step++) {
            String where = String.join(".", path.subList(0, step + 1));
            boolean found = false;
            for (JsonToken token = parser.nextToken(); token == JsonToken.FIELD_NAME; token = parser.nextToken()) {
                JsonToken value = parser.nextToken();
                if (parser.currentName().equals(path.get(step))) {
                    JsonToken expected = step == path.size() - 1 ? JsonToken.START_ARRAY : JsonToken.START_OBJECT;
                    if (value != expected) {
                        throw new UnreadableFileException("the JSON document holds no " + (expected == JsonToken.START_ARRAY
                                ? "array" : "object") + " at " + where + " (line " + parser.currentLocation().getLineNr() + ")");
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
        } while (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\uFEFF');
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

    private RawRecord toRecord(JsonNode node, long line) {
        return RawRecord.ofJson(node, ++index, line);
    }

    private static UnreadableFileException unreadable(Exception e, String where) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof CharacterCodingException) {
                return new UnreadableFileException("the file is not valid text in the supplier's charset (" + where + ")", e);
            }
        }
        String detail = e instanceof JsonProcessingException j ? j.getOriginalMessage() : e.getMessage();
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
            } catch (IOException e) {
                throw unreadable(e, "at line " + parser.currentLocation().getLineNr());
            }
        }

        /**
         * Reads the rest of the file after the records: the objects that hold them (their other fields skipped,
         * not built) and then nothing but white space. A file that goes on after its document is not the
         * document a supplier meant to send, whatever the records before it were.
         */
        private void finishDocument() throws IOException {
            while (!parser.getParsingContext().inRoot()) {
                JsonToken token = parser.nextToken();
                if (token == null) {
                    throw new UnreadableFileException("the JSON document is not closed: the file ends inside it");
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
            JsonNode node;
            try {
                node = MAPPER.readTree(parser);
            } catch (IOException e) {
                throw unreadable(e, "at line " + parser.currentLocation().getLineNr());
            }
            RawRecord record = toRecord(node, line);
            advance();
            return record;
        }
    }

    private final class LineRecords implements Iterator<RawRecord> {
        private final BufferedReader lines;
        private String pending;
        private long lineNumber;

        LineRecords(BufferedReader lines) {
            this.lines = lines;
            advance();
        }

        private void advance() {
            try {
                do {
                    pending = lines.readLine();
                    lineNumber++;
                } while (pending != null && pending.isBlank());
            } catch (IOException e) {
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
            String text = pending;
            long line = lineNumber;
            advance();
            try {
                return toRecord(MAPPER.readTree(text), line);
            } catch (JsonProcessingException e) {
                index++;
                return RawRecord.broken(index, line, "is not valid JSON: " + e.getOriginalMessage());
            } catch (UncheckedIOException e) {
                throw unreadable(e, "at line " + line);
            }
        }
    }
}
