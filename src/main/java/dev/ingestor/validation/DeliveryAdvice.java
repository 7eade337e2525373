package dev.ingestor.validation;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.LocalDate;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/** A valid delivery advice line: the record type Ingestor ships with. */
public record DeliveryAdvice(
        String sourceId,
        Long sourceVersion,
        String sku,
        long quantity,
        LocalDate deliveryDate,
        Map<String, String> attributes) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The record as JSON with sorted keys and no insignificant whitespace: same content, same text. */
    public String canonicalJson() {
        Map<String, Object> fields = new TreeMap<>(attributes);
        fields.put("source_id", sourceId);
        if (sourceVersion != null) {
            fields.put("source_version", sourceVersion);
        }
        fields.put("sku", sku);
        fields.put("quantity", quantity);
        fields.put("delivery_date", deliveryDate.toString());
        try {
            return JSON.writeValueAsString(fields);
        } catch (JsonProcessingException e) {
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
