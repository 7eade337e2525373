package dev.ingestor.web;

import java.io.IOException;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * The OpenAPI document names the server as its caller reached it, so a client generated from it calls the same
 * address. camel-openapi-java (with {@code camel.rest.use-x-forward-headers}) builds the server from the
 * X-Forwarded-Proto, X-Forwarded-Host and Host headers, but names no server at all when X-Forwarded-Proto is
 * missing, and otherwise the bind address ({@code http://0.0.0.0}). A proxy in front sets these headers itself;
 * a caller that reached the app directly gets them filled in here from its own request (scheme, Host).
 */
@Component
public class OpenApiServerFilter extends OncePerRequestFilter implements Ordered {

    static final String FORWARDED_PROTO = "X-Forwarded-Proto";
    static final String HOST = "Host";

    private final String documentPath;

    public OpenApiServerFilter(@Value("${camel.rest.api-context-path}") String documentPath) {
        this.documentPath = documentPath;
    }

    @Override
    public int getOrder() {
        return FilterOrder.OPENAPI_SERVER;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !documentPath.equals(request.getRequestURI());
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        Map<String, String> added = new LinkedHashMap<>();
        if (isBlank(request.getHeader(FORWARDED_PROTO))) {
            added.put(FORWARDED_PROTO, request.getScheme());
        }
        if (isBlank(request.getHeader(HOST))) {
            added.put(HOST, request.getServerName() + ":" + request.getServerPort());
        }
        chain.doFilter(added.isEmpty() ? request : new WithHeaders(request, added), response);
    }

    private static boolean isBlank(String value) {
        return value == null || value.isBlank();
    }

    /** The request with a few headers it did not carry. */
    private static final class WithHeaders extends HttpServletRequestWrapper {

        private final Map<String, String> added;

        WithHeaders(HttpServletRequest request, Map<String, String> added) {
            super(request);
            this.added = added;
        }

        private String addedValue(String name) {
            for (Map.Entry<String, String> header : added.entrySet()) {
                if (header.getKey().equalsIgnoreCase(name)) {
                    return header.getValue();
                }
            }
            return null;
        }

        @Override
        public String getHeader(String name) {
            String value = addedValue(name);
            return value != null ? value : super.getHeader(name);
        }

        @Override
        public Enumeration<String> getHeaders(String name) {
            String value = addedValue(name);
            return value != null ? Collections.enumeration(List.of(value)) : super.getHeaders(name);
        }

        @Override
        public Enumeration<String> getHeaderNames() {
            List<String> names = Collections.list(super.getHeaderNames());
            for (String name : added.keySet()) {
                if (names.stream().noneMatch(n -> n.toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT)))) {
                    names.add(name);
                }
            }
            return Collections.enumeration(names);
        }
    }
}
