package dev.ingestor.web;

import java.io.IOException;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.ObjectMapper;

/**
 * Writes a refusal made before any route runs (by the front door, or for a body over its limit) as
 * problem+json, without touching the request body: when the request
 * carries one, the connection is closed after the answer so the client stops sending it, and none of the rest
 * is read ({@link NoDrainAfterClosingAnswers}); the answer is flushed at once so that the client sees it while
 * it is still sending.
 */
public final class ProblemResponse {

    private final ObjectMapper json;

    public ProblemResponse(ObjectMapper json) {
        this.json = json;
    }

    public void write(HttpServletRequest request, HttpServletResponse response, Problem problem,
            Map<String, String> headers)
            throws IOException {
        if (response.isCommitted()) {
            return;
        }
        response.setStatus(problem.status());
        response.setContentType(Problem.MEDIA_TYPE);
        headers.forEach(response::setHeader);
        if (hasBody(request)) {
            response.setHeader("Connection", "close");
        }
        byte[] body = json.writeValueAsBytes(problem);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
        response.flushBuffer();
    }

    /** Whether the request declares a body (a length above 0, or chunks). */
    public static boolean hasBody(HttpServletRequest request) {
        return request.getContentLengthLong() > 0 || request.getHeader("Transfer-Encoding") != null;
    }
}
