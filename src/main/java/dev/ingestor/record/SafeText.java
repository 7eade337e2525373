package dev.ingestor.record;

/**
 * Text from a supplier's file made safe to store and show: control characters (NUL above all, which
 * PostgreSQL text cannot hold) are written as {@code \\u0000} escapes, and very long values are cut.
 */
public final class SafeText {

    private SafeText() {
    }

    public static String of(String text) {
        return of(text, 2000);
    }

    public static String of(String text, int max) {
        if (text == null) {
            return null;
        }
        StringBuilder out = new StringBuilder(Math.min(text.length(), max) + 8);
        for (int i = 0; i < text.length() && out.length() < max; i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c) && c != '\t') {
                out.append(String.format("\\u%04X", (int) c));
            } else {
                out.append(c);
            }
        }
        if (out.length() >= max) {
            out.append("...");
        }
        return out.toString();
    }

    /** The first control character other than tab, or -1. */
    static int controlCharacterIn(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c) && c != '\t') {
                return c;
            }
        }
        return -1;
    }
}
