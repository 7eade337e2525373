package dev.ingestor.security;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import jakarta.servlet.http.HttpServletRequest;

/**
 * Whether a request was made on this machine, to this machine by a loopback name, without a proxy between: the only
 * requests the public demo keys answer. Listening on 127.0.0.1 is not enough for that: a reverse proxy on the same
 * host forwards the network's requests over loopback, and DNS rebinding has a browser send a page's requests to
 * 127.0.0.1 under the page's own name ({@code Host: attacker.example}). So a request qualifies only when
 * <ul>
 *   <li>its {@code Host} header, and the server name the container took from it, are {@code localhost},
 *       {@code 127.0.0.1} or {@code [::1]}, with any port (a page served under another name cannot send such a
 * Host);</li>
 *   <li>it carries no header a proxy adds ({@link #FORWARDING_HEADERS});</li>
 *   <li>its client address is a loopback address (it is not when a forwarding strategy took it from a header).</li>
 * </ul>
 * A proxy that sends none of these (a loopback {@code Host}, no forwarding header) cannot be told from a local
 * client; keeping demo keys out of such a setup is the operator's part (docs/security.md).
 */
final class DirectLoopbackRequest {

    /** Headers proxies add to what they forward; a client on this machine has no reason to send them. */
    static final List<String> FORWARDING_HEADERS = List.of("Forwarded", "X-Forwarded-For", "X-Forwarded-Host",
            "X-Forwarded-Proto", "X-Forwarded-Port", "X-Forwarded-Prefix", "X-Forwarded-Server", "X-Real-IP", "Via");

    private static final Set<String> LOOPBACK_NAMES = Set.of("localhost", "127.0.0.1", "[::1]");

    private DirectLoopbackRequest() {
    }

    /** Why this request is not a direct loopback request, or empty when it is one. */
    static Optional<String> whyNot(HttpServletRequest request) {
        for (String header : FORWARDING_HEADERS) {
            if (request.getHeader(header) != null) {
                return Optional.of("it carries the forwarding header " + header + " (it came through a proxy)");
            }
        }
        if (!isLoopbackHost(request.getHeader("Host")) || !isLoopbackHost(request.getServerName())) {
            return Optional.of("its Host is not localhost, 127.0.0.1 or [::1] (a proxy, or a DNS name that points at"
                    + " this machine)");
        }
        if (!IpLiterals.isLoopback(request.getRemoteAddr())) {
            return Optional.of("its client address is not a loopback address");
        }
        return Optional.empty();
    }

    /**
     * {@code localhost}, {@code 127.0.0.1} or {@code [::1]} (an IPv6 name also without brackets), with or without a
     * port.
     */
    static boolean isLoopbackHost(String host) {
        if (host == null) {
            return false;
        }
        String name = host.trim().toLowerCase(Locale.ROOT);
        int portAt = name.startsWith("[") ? name.indexOf("]:") + 1 : name.indexOf(':');
        if (name.equals("::1")) {
            // the server name of an IPv6 Host, as some containers give it
            return true;
        }
        if (portAt > 0) {
            String port = name.substring(portAt + 1);
            if (port.isEmpty() || !port.chars().allMatch(c -> c >= '0' && c <= '9')) {
                return false;
            }
            name = name.substring(0, portAt);
        }
        return LOOPBACK_NAMES.contains(name);
    }
}
