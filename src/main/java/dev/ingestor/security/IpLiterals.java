package dev.ingestor.security;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Client addresses as the servlet request gives them ({@code getRemoteAddr()}), read as IP literals and never
 * looked up: behind a forwarding strategy that address comes from a header a client may write ({@code
 * X-Forwarded-For: attacker.example}), and {@link InetAddress#getByName} would resolve a name through DNS.
 */
final class IpLiterals {

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    /** Hex groups, colons, an embedded IPv4 tail and a zone: only what an IPv6 literal is made of. */
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(%[0-9A-Za-z._-]+)?");

    private IpLiterals() {
    }

    /** The address this text is the literal of; empty for a name, a malformed literal or null. */
    static Optional<InetAddress> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        String literal = text.trim();
        if (literal.startsWith("[") && literal.endsWith("]")) {
            literal = literal.substring(1, literal.length() - 1);
        }
        try {
            if (IPV4.matcher(literal).matches()) {
                return ipv4(literal);
            }
            if (IPV6.matcher(literal).matches()) {
                // brackets make the JDK take it as an IPv6 literal or refuse it, never look it up
                return Optional.of(InetAddress.getByName("[" + literal + "]"));
            }
        } catch (UnknownHostException e) {
            // a malformed IPv6 literal (too many groups, an unknown zone)
        }
        return Optional.empty();
    }

    /** Built from its four numbers: the JDK would look up a dotted text that is no address (an octet over 255). */
    private static Optional<InetAddress> ipv4(String literal) throws UnknownHostException {
        String[] octets = literal.split("\\.");
        byte[] bytes = new byte[4];
        for (int i = 0; i < 4; i++) {
            int octet = Integer.parseInt(octets[i]);
            if (octet > 255) {
                return Optional.empty();
            }
            bytes[i] = (byte) octet;
        }
        return Optional.of(InetAddress.getByAddress(bytes));
    }

    /** Whether this text is the literal of a loopback address (127.0.0.0/8, ::1). */
    static boolean isLoopback(String text) {
        return parse(text).map(InetAddress::isLoopbackAddress).orElse(false);
    }
}
