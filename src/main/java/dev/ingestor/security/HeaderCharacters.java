package dev.ingestor.security;

/**
 * The characters Spring Security's {@code StrictHttpFirewall} allows in a header's name and value, checked one code
 * point at a time instead of by its regular expressions ({@code [\p{IsAssigned}&&[^\p{IsControl}]]*}, and the same
 * with a tab for values). The firewall checks every header each time anything reads it, and the request filters,
 * Camel's platform-http binding and the routes read them many times per request: the expressions were a tenth of
 * the request threads' CPU in a push. Same rule, same answers ({@code HeaderCharactersTest} compares the two over
 * every code point), but for one relaxation in values: the C1 controls U+0080 to U+009F. The servlet container reads
 * a header's bytes as ISO-8859-1, so a value sent in UTF-8 ({@code €} is E2 82 AC) arrives holding them; they end no
 * header and start no other (CR, LF and the other C0 controls stay refused).
 */
final class HeaderCharacters {

    private HeaderCharacters() {
    }

    /** Assigned and not a control character: what the firewall allows in a header's name. */
    static boolean allowedInName(String name) {
        return allowed(name, false);
    }

    /** The same, and a tab: what the firewall allows in a header's value. */
    static boolean allowedInValue(String value) {
        return allowed(value, true);
    }

    private static boolean allowed(String text, boolean tab) {
        for (int i = 0; i < text.length();) {
            int c = text.codePointAt(i);
            int type = Character.getType(c);
            if (type == Character.UNASSIGNED || type == Character.CONTROL && !(tab && (c == '\t' || isC1(c)))) {
                return false;
            }
            i += Character.charCount(c);
        }
        return true;
    }

    /** A C1 control: a UTF-8 continuation byte as ISO-8859-1 reads it. */
    static boolean isC1(int c) {
        return c >= 0x80 && c <= 0x9F;
    }
}
