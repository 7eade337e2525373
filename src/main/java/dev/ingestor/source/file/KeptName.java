package dev.ingestor.source.file;

import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The name a file is kept under once it is answered: {@code yyyyMMdd-HHmmss-SSS-<name>}, shortened where the
 * whole would exceed the 255 bytes (UTF-8) a file name may have on common file systems. Without shortening a
 * name of 236 to 255 bytes could be taken but never moved, and would be taken again at every poll. The job keeps
 * the full name; the shortened one keeps the start, a cut mark with eight hex digits of the whole name's SHA-256,
 * and the extension. The digits tell apart names that differ only after the cut: two of them answered in the same
 * millisecond would otherwise share a kept name, and Camel deletes a file in the way of a move.
 */
final class KeptName {

    public static final int MAX_BYTES = 255;
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS");
    /** Marks where a name was cut; the whole name's digest follows it. */
    private static final String CUT = "~";
    private static final int DIGEST_HEX = 8;
    /** Longer "extensions" are not kept whole: they are likely no extension at all. */
    private static final int MAX_EXTENSION_BYTES = 16;

    private KeptName() {
    }

    public static String stamped(String name, LocalDateTime now) {
        String prefix = now.format(STAMP) + "-";
        return prefix + fit(name, MAX_BYTES - bytes(prefix));
    }

    /**
     * {@code name} itself when it has at most {@code maxBytes} bytes; else its start, a cut mark, the whole name's
     * digest and its extension.
     */
    static String fit(String name, int maxBytes) {
        if (bytes(name) <= maxBytes) {
            return name;
        }
        int dot = name.lastIndexOf('.');
        String extension = dot > 0 && bytes(name.substring(dot)) <= MAX_EXTENSION_BYTES ? name.substring(dot) : "";
        String stem = extension.isEmpty() ? name : name.substring(0, dot);
        int room = maxBytes - bytes(CUT) - DIGEST_HEX - bytes(extension);
        StringBuilder kept = new StringBuilder();
        int used = 0;
        for (int i = 0; i < stem.length();) {
            int codePoint = stem.codePointAt(i);
            int size = bytes(new String(Character.toChars(codePoint)));
            if (used + size > room) {
                break;
            }
            kept.appendCodePoint(codePoint);
            used += size;
            i += Character.charCount(codePoint);
        }
        return kept + CUT + digest(name) + extension;
    }

    private static String digest(String name) {
        try {
            byte[] sha = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(name.getBytes(StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(sha).substring(0, DIGEST_HEX);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java has SHA-256", e);
        }
    }

    static int bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }
}
