package dev.ingestor.source.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import dev.ingestor.config.JsonNesting;
import dev.ingestor.web.ApiProblemException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.StreamConstraintsException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.json.JsonWriteFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.cfg.JsonNodeFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.StringNode;

/**
 * Strict JSON reading with positions in its errors, and the canonical form a request fingerprint is taken
 * of: object keys sorted, no insignificant whitespace, so that two clients serialising the same
 * request differently send the same request.
 */
final class CanonicalJson {

    private static final JsonMapper MAPPER = mapper(JsonNesting.factory());

    private static JsonMapper mapper(JsonFactory factory) {
        return JsonMapper.builder(factory)
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .configure(JsonNodeFeature.WRITE_PROPERTIES_SORTED, true)
                // the canonical form is stored (request fingerprints) and must not change with the library: these two
                // keep what Jackson 2 wrote (1.50 as 1.5, characters beyond U+FFFF as escaped surrogate pairs)
                .enable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
                .disable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
                .build();
    }

    private CanonicalJson() {
    }

    /** Parses a request body; a body that is not JSON is a 400 naming where it broke. */
    public static JsonNode parse(byte[] body) {
        try {
            JsonNode node = MAPPER.readTree(body);
            if (node == null || node.isMissingNode()) {
                throw ApiProblemException.badRequest("malformed-json", "the body is empty; expected a JSON object");
            }
            return node;
        } catch (JacksonException e) {
            TokenStreamLocation at = e.getLocation();
            String where = at == null
                    ? ""
                    : " at line " + at.getLineNr() + ", column " + at.getColumnNr()
                            + " (byte " + at.getByteOffset() + ")";
            throw ApiProblemException.badRequest("malformed-json", "the body is not valid JSON" + where + ": "
                    + e.getOriginalMessage());
        }
    }

    /**
     * Strict streaming parsers over request bodies (duplicate keys refused, as {@link #parse} does) whose strings and
     * property names are at most {@code maxChars} characters long: a longer one is refused while it is read (a {@link
     * StreamConstraintsException} that {@link #isTooLongString} tells apart), so a body of one huge string is never
     * held whole in memory, however its length is counted afterwards.
     */
    static JsonMapper parsersWithStringsUpTo(long maxChars) {
        int max = (int) Math.min(maxChars, Integer.MAX_VALUE);
        return mapper(JsonNesting.factory().rebuild()
                .streamReadConstraints(JsonNesting.READ.rebuild().maxStringLength(max)
                        .maxNameLength(Math.min(max, MAX_NAME_CHARS)).build())
                .build());
    }

    /**
     * The longest field name, in characters: Jackson's own limit, which every reader of an item's record holds to (the
     * stored lines' reader, the item history's, a consumer of its Kafka event), so a longer one is refused here.
     */
    static final int MAX_NAME_CHARS = StreamReadConstraints.DEFAULT_MAX_NAME_LEN;

    /** Whether Jackson refused a string or a property name as longer than its parser allows. */
    static boolean isTooLongString(StreamConstraintsException e) {
        String message = String.valueOf(e.getOriginalMessage());
        return message.contains("getMaxStringLength") || message.contains("getMaxNameLength");
    }

    /** Whether Jackson refused a property name as longer than {@link #MAX_NAME_CHARS}. */
    static boolean isTooLongName(StreamConstraintsException e) {
        return String.valueOf(e.getOriginalMessage()).contains("getMaxNameLength");
    }

    /** A field name over {@link #MAX_NAME_CHARS}: a 400 naming that limit. */
    static ApiProblemException nameTooLong(String where) {
        return ApiProblemException.badRequest("field-name-too-long", where + " a field name longer than "
                + MAX_NAME_CHARS + " characters, the most a field name may have");
    }

    /** Reads the value at the parser's current token as a tree, with the same settings as {@link #parse}. */
    static JsonNode readValue(JsonParser parser) throws IOException {
        return VALUE_READER.readTree(parser);
    }

    /** Reads one JSON value from text, with the same settings as {@link #readValue(JsonParser)}. */
    static JsonNode readValue(String json) throws IOException {
        return VALUE_READER.readTree(json);
    }

    /**
     * A generator writing characters as they are (no escaping of non-ASCII), so what a parser read can be
     * copied and read again unchanged, unpaired surrogates included.
     */
    static tools.jackson.core.JsonGenerator copier(java.io.Writer out) throws IOException {
        return MAPPER.createGenerator(out);
    }

    /**
     * One value inside a document: what follows it is the rest of the document, not trailing content. Its parsers of
     * text keep no table of the names they read ({@link JsonNesting#textBuilder}): every item of every batch is read
     * again through it, and a table shared by them all would hold on to the names of every supplier's items.
     */
    private static final tools.jackson.databind.ObjectReader VALUE_READER = mapper(JsonNesting.textBuilder().build())
            .reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** The JSON form of a text (a quoted, escaped string), as a key is written in the canonical form. */
    static byte[] quoted(String text) {
        return canonical(StringNode.valueOf(text));
    }

    /** A body that is not JSON: a 400 naming where it broke. */
    static ApiProblemException malformed(JacksonException e) {
        TokenStreamLocation at = e.getLocation();
        String where = at == null
                ? ""
                : " at line " + at.getLineNr() + ", column " + at.getColumnNr()
                        + " (byte " + at.getByteOffset() + ")";
        return ApiProblemException.badRequest("malformed-json", "the body is not valid JSON" + where + ": "
                + e.getOriginalMessage());
    }

    public static byte[] canonical(JsonNode node) {
        try {
            return MAPPER.writeValueAsBytes(node);
        } catch (JacksonException e) {
            throw new IllegalStateException("a parsed tree is always writable", e);
        }
    }

    /** SHA-256 hex of {@code prefix} and the canonical form of {@code node}. */
    public static String fingerprint(String prefix, JsonNode node) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(prefix.getBytes(StandardCharsets.UTF_8));
            sha.update((byte) '\n');
            sha.update(canonical(node));
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
