package dev.ingestor.web;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.boot.tomcat.autoconfigure.TomcatServerProperties;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.ObjectMapper;

/**
 * The query string, checked before anything reads it as parameters: the servlet container parses it on first use
 * (Camel's platform-http reads every parameter of every request), and one it refuses (not UTF-8 once decoded:
 * {@code %FF}, {@code %C3%28}; a {@code %} not followed by two hex digits; a parameter without a name, {@code ?=1};
 * more parameters than {@code server.tomcat.max-parameter-count}) would fail there as a 500 with an HTML error
 * page. Here it is a 400 problem+json saying what is wrong. Runs after authentication, so a caller without a key is
 * answered 401 as for any other request. (A form body is answered 415 by the routes, which take none.)
 */
@Component
class QueryStringFilter extends OncePerRequestFilter implements Ordered {

    private final ProblemResponse problems;
    private final int maxParameters;

    QueryStringFilter(ObjectMapper json, TomcatServerProperties tomcat) {
        this.problems = new ProblemResponse(json);
        this.maxParameters = tomcat.getMaxParameterCount();
    }

    @Override
    public int getOrder() { return FilterOrder.QUERY_STRING; }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String fault = firstFault(request.getQueryString(), maxParameters);
        if (fault != null) {
            problems.write(request, response, Problem.of(400, "malformed-query", "Bad Request",
                    "the query string is not acceptable: " + fault), Map.of());
            return;
        }
        chain.doFilter(request, response);
    }

    /**
     * What is wrong with a raw (still percent-encoded) query string, or null when the container can read its
     * parameters: each has a name, there are no more than {@code maxParameters} (-1: no limit), and the whole
     * decodes as UTF-8. (Tomcat refuses a byte outside ASCII in the request line itself; one that came through
     * would be taken as that byte.)
     */
    static String firstFault(String query, int maxParameters) {
        if (query == null || query.isEmpty()) {
            return null;
        }
        int parameters = 0;
        int at = 0;
        for (String chunk : query.split("&", -1)) {
            if (chunk.startsWith("=")) {
                return "the parameter at character " + (at + 1) + " has no name";
            }
            if (!chunk.isEmpty() && maxParameters >= 0 && ++parameters > maxParameters) {
                // the setting is server.tomcat.max-parameter-count; a caller is told the number, not the server
                return "more than " + maxParameters + " parameters, the most a request may have";
            }
            at += chunk.length() + 1;
        }
        ByteBuffer bytes = ByteBuffer.allocate(query.length());
        for (int i = 0; i < query.length(); i++) {
            char c = query.charAt(i);
            if (c == '%') {
                int high = i + 1 < query.length() ? Character.digit(query.charAt(i + 1), 16) : -1;
                int low = i + 2 < query.length() ? Character.digit(query.charAt(i + 2), 16) : -1;
                if (high < 0 || low < 0) {
                    return "it is not percent-encoded UTF-8 ('%' at character " + (i + 1)
                            + " is not followed by two hexadecimal digits)";
                }
                bytes.put((byte) (high * 16 + low));
                i += 2;
            } else if (c > 0xFF) {
                return "character " + (i + 1) + " is not a byte";
            } else {
                bytes.put((byte) c);
            }
        }
        bytes.flip();
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(bytes);
            return null;
        } catch (CharacterCodingException e) {
            return "it is not percent-encoded UTF-8 (the bytes its %-escapes stand for are not valid UTF-8)";
        }
    }
}
