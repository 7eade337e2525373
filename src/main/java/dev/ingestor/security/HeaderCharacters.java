package dev.ingestor.security;

/**
 * The characters Spring Security's {@code StrictHttpFirewall} allows in a header's name and value, checked one code
 * point at a time instead of by its regular expressions ({@code [\p{IsAssigned}&&[^\p{IsControl}]]*}, and the same
 * with a tab for values). The firewall checks every header each time anything reads it, and the request filters,
 * Camel's platform-http binding and the routes read them many times per request: the expressions were a tenth of
 * the request threads' CPU in a push. Same rule, same answers ({@code HeaderCharactersTest} compares the two over
 * every code point).
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
            if (type == Character.UNASSIGNED || type == Character.CONTROL && !(tab && c == '\t')) {
                return false;
            }
            i += Character.charCount(c);
        }
        return true;
    }
}
