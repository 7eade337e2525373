package dev.ingestor.validation;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.LocalDate;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

import dev.ingestor.config.JsonNesting;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectMapper;

/**
 * A valid delivery advice line: the record type Ingestor ships with. A tombstone ({@code deleted}) retires its
 * item and carries only the item's source id and version (docs/design.md, Version rules).
 */
public record DeliveryAdvice(
        String sourceId,
        Long sourceVersion,
        String sku,
        long quantity,
        LocalDate deliveryDate,
        Map<String, String> attributes,
        boolean deleted) {

    private static final ObjectMapper JSON = JsonNesting.mapper();

    /** A live record. */
    public DeliveryAdvice(String sourceId, Long sourceVersion, String sku, long quantity, LocalDate deliveryDate,
            Map<String, String> attributes) {
        this(sourceId, sourceVersion, sku, quantity, deliveryDate, attributes, false);
    }

    /** A tombstone: the item is retired from this version on. */
    public static DeliveryAdvice tombstone(String sourceId, Long sourceVersion) {
        return new DeliveryAdvice(sourceId, sourceVersion, null, 0, null, Map.of(), true);
    }

    /**
     * The record as JSON with sorted keys and no insignificant whitespace: same content, same text. A
     * tombstone's is {@code {"deleted":true,"source_id":…,"source_version":…}}, never the text of a live record,
     * so by content too a tombstone is a change of a live item and a live record a change of a retired one.
     */
    public String canonicalJson() {
        Map<String, Object> fields = new TreeMap<>(attributes);
        fields.put("source_id", sourceId);
        if (sourceVersion != null) {
            fields.put("source_version", sourceVersion);
        }
        if (deleted) {
            fields.put("deleted", true);
        } else {
            fields.put("sku", sku);
            fields.put("quantity", quantity);
            fields.put("delivery_date", deliveryDate.toString());
        }
        try {
            return JSON.writeValueAsString(fields);
        } catch (JacksonException e) {
            throw new IllegalStateException("a record of strings and numbers is always JSON", e);
        }
    }

    /** Identifies the content, so an unversioned record that did not change is recognised as a replay. */
    public static String hash(String canonicalJson) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(canonicalJson.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
