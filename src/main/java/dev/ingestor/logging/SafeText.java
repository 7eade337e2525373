package dev.ingestor.logging;

/**
 * Text from a supplier's file made safe to store and show: control characters (NUL above all, which
 * PostgreSQL text cannot hold) and unpaired UTF-16 surrogates are written as {@code \\u0000} escapes, and very long
 * values are cut.
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
            if ((Character.isISOControl(c) && c != '\t') || unpairedAt(text, i)) {
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

    /**
     * The index of the first UTF-16 surrogate without its partner, or -1. Such a string is not valid Unicode:
     * encoded as UTF-8 it turns into '?', so two different strings would be stored as the same text.
     */
    public static int unpairedSurrogateIn(String text) {
        for (int i = 0; i < text.length(); i++) {
            if (unpairedAt(text, i)) {
                return i;
            }
        }
        return -1;
    }

    private static boolean unpairedAt(String text, int i) {
        char c = text.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1));
        }
        if (Character.isLowSurrogate(c)) {
            return i == 0 || !Character.isHighSurrogate(text.charAt(i - 1));
        }
        return false;
    }

    /** The first control character other than tab, or -1. */
    public static int controlCharacterIn(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c) && c != '\t') {
                return c;
            }
        }
        return -1;
    }
}
