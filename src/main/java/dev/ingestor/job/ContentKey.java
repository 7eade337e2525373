package dev.ingestor.job;

import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * The identity of a file: {@code {supplierCode}:{sha256hex}}. Derived from the bytes, never asserted by a
 * client, and scoped by supplier so two suppliers may send identical content (docs/design.md, Idempotency rules).
 */
public record ContentKey(String supplier, String sha256) {

    private static final Pattern SHA256_HEX = Pattern.compile("[0-9a-f]{64}");

    public ContentKey {
        if (supplier == null || supplier.isBlank() || supplier.contains(":")) {
            throw new IllegalArgumentException("supplier code must be non-blank and contain no ':': " + supplier);
        }
        if (sha256 == null || !SHA256_HEX.matcher(sha256).matches()) {
            throw new IllegalArgumentException("sha256 must be 64 lower-case hex digits: " + sha256);
        }
    }

    public static ContentKey of(String supplier, byte[] digest) {
        return new ContentKey(supplier, HexFormat.of().formatHex(digest));
    }

    public static ContentKey parse(String key) {
        int colon = key == null ? -1 : key.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("not a content key (supplier:sha256): " + key);
        }
        return new ContentKey(key.substring(0, colon), key.substring(colon + 1));
    }

    @Override
    public String toString() {
        return supplier + ":" + sha256;
    }
}
