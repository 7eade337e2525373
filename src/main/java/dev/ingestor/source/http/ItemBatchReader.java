package dev.ingestor.source.http;

import java.io.BufferedOutputStream;
import java.io.CharArrayWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PushbackInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

import dev.ingestor.logging.SafeText;
import dev.ingestor.web.ApiProblemException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.exc.JacksonIOException;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Reads the body of an item batch {@code {"items": [...]}} item by item, so a batch is never held whole in
 * memory: each item is parsed alone, checked against the record size limit, counted against the items cap,
 * and written in its canonical form as one line of a JSON Lines file (line N is item N). The request's
 * fingerprint is taken over the same canonical form of the whole body as before (keys sorted at every level,
 * no insignificant whitespace), so a retry of a request stored earlier still matches its key.
 */
final class ItemBatchReader {

    /** The items as canonical JSON Lines in a temporary file, their number and the request's fingerprint. */
    record Batch(Path jsonLines, int count, String fingerprint) {
    }

    private final int maxItems;
    private final long maxRecordSize;
    private final Path spoolDir;

    ItemBatchReader(int maxItems, long maxRecordSize, Path spoolDir) {
        this.maxItems = maxItems;
        this.maxRecordSize = maxRecordSize;
        this.spoolDir = spoolDir;
    }

    Batch read(InputStream body, String fingerprintPrefix) throws IOException {
        if (body == null) {
            throw ApiProblemException.badRequest("malformed-json", "the request has no body; expected a JSON object");
        }
        InputStream utf8 = utf8(body);
        // parsers whose strings stop at the record size (a character takes at least one byte of UTF-8), made for this
        // body: a parser of bytes keeps the field names it reads in a table of its factory's, which a factory kept
        // for every request would hold on to, as many as 6,000 names of up to 50,000 characters from any supplier
        // (making them costs some 10-30 microseconds)
        JsonMapper parsers = CanonicalJson.parsersWithStringsUpTo(maxRecordSize);
        Files.createDirectories(spoolDir);
        Path lines = Files.createTempFile(spoolDir, "items-", ".jsonl");
        try (InputStream in = utf8;
                JsonParser parser = parsers.createParser(in);
                OutputStream out = new BufferedOutputStream(Files.newOutputStream(lines), 64 * 1024)) {
            Map<String, JsonNode> others = new TreeMap<>();
            int count = readObject(parser, out, others);
            out.flush();
            return new Batch(lines, count, fingerprint(fingerprintPrefix, others, lines));
        } catch (StreamConstraintsException e) {
            Files.deleteIfExists(lines);
            if (CanonicalJson.isTooLongName(e) && maxRecordSize > CanonicalJson.MAX_NAME_CHARS) {
                throw CanonicalJson.nameTooLong("the body has");
            }
            if (CanonicalJson.isTooLongString(e)) {
                throw ApiProblemException.badRequest("record-too-large", "a string in the body is larger than the"
                        + " limit of " + maxRecordSize + " bytes (ingestor.http.max-record-size); reading stopped"
                        + (e.getLocation() == null ? "" : " at byte " + e.getLocation().getByteOffset()));
            }
            throw CanonicalJson.malformed(e);
        } catch (JacksonIOException e) {
            // the body could not be read (a client gone, a limit reached): not a JSON mistake
            Files.deleteIfExists(lines);
            throw e.getCause();
        } catch (JacksonException e) {
            Files.deleteIfExists(lines);
            throw CanonicalJson.malformed(e);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(lines);
            throw e;
        }
    }

    /**
     * The body, refused unless it is UTF-8: JSON between systems is UTF-8 (RFC 8259), and Jackson would otherwise
     * detect UTF-16 and UTF-32, read them through a reader that counts no bytes (so no record size limit would hold)
     * and report their malformed bytes as a failure to read the body. A JSON text begins with an ASCII character or
     * a UTF-8 byte-order mark, which Jackson skips; a zero byte or a UTF-16 byte-order mark in its first four bytes is
     * another encoding.
     */
    private static InputStream utf8(InputStream body) throws IOException {
        PushbackInputStream in = new PushbackInputStream(body, 4);
        byte[] head = in.readNBytes(4);
        in.unread(head);
        boolean utf16Mark = head.length >= 2 && ((head[0] & 0xff) == 0xfe && (head[1] & 0xff) == 0xff
                || (head[0] & 0xff) == 0xff && (head[1] & 0xff) == 0xfe);
        boolean zero = false;
        for (byte b : head) {
            zero |= b == 0;
        }
        if (utf16Mark || zero) {
            throw ApiProblemException.badRequest("malformed-json", "the body is not UTF-8 (its first bytes are those"
                    + " of UTF-16 or UTF-32): send JSON as UTF-8, as RFC 8259 requires");
        }
        return in;
    }

    private int readObject(JsonParser parser, OutputStream out, Map<String, JsonNode> others) throws IOException {
        JsonToken token = parser.nextToken();
        if (token == null) {
            throw ApiProblemException.badRequest("malformed-json", "the body is empty; expected a JSON object");
        }
        if (token != JsonToken.START_OBJECT) {
            throw notABatch();
        }
        int count = -1;
        long othersSize = 0;
        while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
            String name = parser.currentName();
            parser.nextToken();
            if (name.equals("items") && parser.currentToken() == JsonToken.START_ARRAY) {
                count = readItems(parser, out);
            } else if (name.equals("items")) {
                throw notABatch();
            } else {
                // the fields besides "items" share one record's allowance, so many or big ones cannot fill the heap
                long budget = maxRecordSize - othersSize;
                long start = parser.currentTokenLocation().getByteOffset();
                others.put(name, boundedValue(parser, budget, () -> "the fields besides \"items\" are"));
                othersSize += parser.currentLocation().getByteOffset() - start + name.length() + 3;
            }
        }
        if (parser.nextToken() != null) {
            throw ApiProblemException.badRequest("malformed-json", "the body is not valid JSON at line "
                    + parser.currentLocation().getLineNr() + ", column " + parser.currentLocation().getColumnNr()
                    + ": content after the end of the JSON object");
        }
        if (count < 0) {
            throw notABatch();
        }
        if (count == 0) {
            throw ApiProblemException.badRequest("bad-batch", "\"items\" is empty; send at least one record");
        }
        return count;
    }

    private int readItems(JsonParser parser, OutputStream out) throws IOException {
        int count = 0;
        while (parser.nextToken() != JsonToken.END_ARRAY) {
            count++;
            if (count > maxItems) {
                throw ApiProblemException.tooLarge("the batch holds more than " + maxItems + " items, the limit"
                        + " (ingestor.http.max-items-per-batch); send the records in several batches, or as a file");
            }
            int number = count;
            JsonNode item = boundedValue(parser, maxRecordSize, () -> "item " + number + " is");
            out.write(CanonicalJson.canonical(item));
            out.write('\n');
        }
        return count;
    }

    /**
     * Reads the value at the parser's current token as a tree, copying it token by token and stopping as soon
     * as it has taken more than {@code limit} bytes of the body: a huge value is refused having read little
     * more than the limit, never built whole in memory. The copy is parsed again with the same settings as
     * {@link CanonicalJson#readValue}, so the tree (and the fingerprint) is the one a whole parse gives.
     */
    private JsonNode boundedValue(JsonParser parser, long limit, Supplier<String> what) throws IOException {
        long start = parser.currentTokenLocation().getByteOffset();
        CharArrayWriter copy = new CharArrayWriter();
        try (JsonGenerator generator = CanonicalJson.copier(copy)) {
            int depth = 0;
            do {
                JsonToken token = parser.currentToken();
                switch (token) {
                    // strings as characters and numbers as their text: nothing is decoded or rounded on the way
                    case VALUE_STRING -> generator.writeString(parser.getStringCharacters(), parser.getStringOffset(),
                            parser.getStringLength());
                    case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> generator.writeNumber(parser.getString());
                    default -> generator.copyCurrentEvent(parser);
                }
                if (token.isStructStart()) {
                    depth++;
                } else if (token.isStructEnd()) {
                    depth--;
                }
                long read = parser.currentLocation().getByteOffset() - start;
                if (read > limit) {
                    throw ApiProblemException.badRequest("record-too-large", what.get() + " larger than the limit of "
                            + maxRecordSize + " bytes (ingestor.http.max-record-size): reading stopped after " + read
                            + " bytes of JSON");
                }
            } while (depth > 0 && parser.nextToken() != null);
        } catch (StreamConstraintsException e) {
            if (CanonicalJson.isTooLongName(e) && maxRecordSize > CanonicalJson.MAX_NAME_CHARS) {
                throw CanonicalJson.nameTooLong(what.get().replaceFirst(" is$", " has").replaceFirst(" are$", " have"));
            }
            if (CanonicalJson.isTooLongString(e)) {
                throw ApiProblemException.badRequest("record-too-large", what.get() + " larger than the limit of "
                        + maxRecordSize + " bytes (ingestor.http.max-record-size): one of its strings is longer");
            }
            throw e;
        }
        try {
            return CanonicalJson.readValue(copy.toString());
        } catch (NumberFormatException e) {
            // a decimal whose exponent is past what a BigDecimal holds (1e-2147483649): Jackson's own, not a JSON error
            throw ApiProblemException.badRequest("number-out-of-range", what.get() + " not readable: it holds a number"
                    + " whose exponent is out of range (" + SafeText.of(e.getMessage(), 80) + ")");
        }
    }

    private static ApiProblemException notABatch() {
        return ApiProblemException.badRequest("bad-batch", "the body must be a JSON object with an array \"items\":"
                + " {\"items\": [{\"source_id\": ..., \"sku\": ..., \"quantity\": ..., \"delivery_date\": ...}]}");
    }

    /**
     * SHA-256 of the prefix, a newline and the canonical body: the object's keys in order, "items" being the
     * lines of the file joined by commas. Equal to hashing {@link CanonicalJson#canonical} of the whole tree.
     */
    private static String fingerprint(String prefix, Map<String, JsonNode> others, Path lines) throws IOException {
        MessageDigest sha = sha256();
        sha.update(prefix.getBytes(StandardCharsets.UTF_8));
        sha.update((byte) '\n');
        sha.update((byte) '{');
        Map<String, JsonNode> keys = new TreeMap<>(others);
        keys.put("items", null);
        boolean first = true;
        for (Map.Entry<String, JsonNode> entry : keys.entrySet()) {
            if (!first) {
                sha.update((byte) ',');
            }
            first = false;
            sha.update(CanonicalJson.quoted(entry.getKey()));
            sha.update((byte) ':');
            if (entry.getValue() == null) {
                sha.update((byte) '[');
                hashLinesAsArrayElements(sha, lines);
                sha.update((byte) ']');
            } else {
                sha.update(CanonicalJson.canonical(entry.getValue()));
            }
        }
        sha.update((byte) '}');
        return HexFormat.of().formatHex(sha.digest());
    }

    /** Canonical JSON holds no raw newline (it is escaped in strings), so each newline separates two items. */
    private static void hashLinesAsArrayElements(MessageDigest sha, Path lines) throws IOException {
        long remaining = Files.size(lines) - 1; // the last newline ends the last item
        try (InputStream in = Files.newInputStream(lines)) {
            byte[] buffer = new byte[64 * 1024];
            int n;
            while (remaining > 0 && (n = in.read(buffer, 0, (int) Math.min(buffer.length, remaining))) > 0) {
                for (int i = 0; i < n; i++) {
                    if (buffer[i] == '\n') {
                        buffer[i] = ',';
                    }
                }
                sha.update(buffer, 0, n);
                remaining -= n;
            }
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
