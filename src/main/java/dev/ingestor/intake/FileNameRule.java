package dev.ingestor.intake;

import java.util.Optional;

/**
 * What makes a supplier's file name unusable. The name is only metadata (identity comes from the bytes),
 * but it is shown in logs, the API and the admin page, and moved around on disk, so names that would
 * corrupt a log line, escape a folder or be unreadable are refused.
 */
public final class FileNameRule {

    /** Bytes of the name in UTF-8. */
    public static final int MAX_LENGTH = 255;
    private static final String FORBIDDEN = "/\\:*?\"<>|";

    private FileNameRule() {
    }

    /** Why the name is unusable, or empty when it is fine. */
    public static Optional<String> problem(String name) {
        if (name == null || name.isBlank()) {
            return Optional.of("the file name is empty");
        }
        // bytes, not characters: file systems limit a name to 255 bytes, and one character may take up to four
        int bytes = name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (bytes > MAX_LENGTH) {
            return Optional
                    .of("the file name is " + bytes + " bytes long (UTF-8); at most " + MAX_LENGTH + " are allowed");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isISOControl(c)) {
                return Optional.of(String.format("the file name contains the control character U+%04X at position %d",
                        (int) c, i + 1));
            }
            if (FORBIDDEN.indexOf(c) >= 0) {
                return Optional.of("the file name contains '" + c + "' at position " + (i + 1) + "; none of "
                        + FORBIDDEN + " are allowed");
            }
            if (c == '\uFFFD') {
                return Optional
                        .of("the file name is not valid text in this system's encoding (position " + (i + 1) + ")");
            }
        }
        if (name.equals(".") || name.equals("..") || name.startsWith(".")) {
            return Optional.of("the file name starts with '.', which marks hidden and working files");
        }
        return Optional.empty();
    }

    /** A rendering of any name that is safe to put in a log line. */
    public static String printable(String name) {
        if (name == null) {
            return "<none>";
        }
        StringBuilder out = new StringBuilder(Math.min(name.length(), 300) + 2).append('"');
        for (int i = 0; i < name.length() && i < 300; i++) {
            char c = name.charAt(i);
            if (Character.isISOControl(c) || c == '"') {
                out.append(String.format("\\u%04X", (int) c));
            } else {
                out.append(c);
            }
        }
        if (name.length() > 300) {
            out.append("...");
        }
        return out.append('"').toString();
    }
}
