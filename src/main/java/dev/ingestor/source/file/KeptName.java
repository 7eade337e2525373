package dev.ingestor.source.file;

import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The name a file is kept under once it is answered: {@code yyyyMMdd-HHmmss-SSS-<name>}, shortened where the
 * whole would exceed the 255 bytes (UTF-8) a file name may have on common file systems. Without shortening a
 * name of 236 to 255 bytes could be taken but never moved, and would be taken again at every poll. The job keeps
 * the full name; the shortened one keeps the start and the extension.
 */
final class KeptName {

    public static final int MAX_BYTES = 255;
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS");
    /** Marks where a name was cut. */
    private static final String CUT = "~";
    /** Longer "extensions" are not kept whole: they are likely no extension at all. */
    private static final int MAX_EXTENSION_BYTES = 16;

    private KeptName() {
    }

    public static String stamped(String name, LocalDateTime now) {
        String prefix = now.format(STAMP) + "-";
        return prefix + fit(name, MAX_BYTES - bytes(prefix));
    }

    /** {@code name} itself when it has at most {@code maxBytes} bytes; else its start, a cut mark and its extension. */
    static String fit(String name, int maxBytes) {
        if (bytes(name) <= maxBytes) {
            return name;
        }
        int dot = name.lastIndexOf('.');
        String extension = dot > 0 && bytes(name.substring(dot)) <= MAX_EXTENSION_BYTES ? name.substring(dot) : "";
        String stem = extension.isEmpty() ? name : name.substring(0, dot);
        int room = maxBytes - bytes(CUT) - bytes(extension);
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
        return kept + CUT + extension;
    }

    static int bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }
}
