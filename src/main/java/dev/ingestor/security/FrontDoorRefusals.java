package dev.ingestor.security;

import java.io.IOException;
import java.util.Map;

import dev.ingestor.web.ApiKeys;
import dev.ingestor.web.Problem;
import dev.ingestor.web.ProblemResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.access.AccessDeniedHandler;
import org.springframework.security.web.firewall.RequestRejectedException;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import tools.jackson.databind.ObjectMapper;

/**
 * Every answer the front door gives instead of letting a request in, as problem+json: 401 for a missing or
 * wrong key (counted against the client address), 429 for an address that failed too often, 403 for a key
 * that may not reach the endpoint (or a demo key not used directly on loopback), 400 for a request the
 * firewall refuses. None of them reads the body.
 */
final class FrontDoorRefusals implements AuthenticationEntryPoint, AccessDeniedHandler, RequestRejectedHandler {

    private static final Map<String, String> CHALLENGE = Map.of("WWW-Authenticate", "Bearer realm=\"ingestor\"");

    private final FailedAuthThrottle throttle;
    private final ProblemResponse problems;

    FrontDoorRefusals(FailedAuthThrottle throttle, ObjectMapper json) {
        this.throttle = throttle;
        this.problems = new ProblemResponse(json);
    }

    /** A request without a key to an endpoint that needs one. */
    @Override
    public void commence(HttpServletRequest request, HttpServletResponse response, AuthenticationException e)
            throws IOException {
        if (!refusedAddress(request, response)) {
            unauthorized(request, response, "no API key", ApiKeys.NO_KEY);
        }
    }

    /** 401 for this request, and one more failure for its address. */
    void unauthorized(HttpServletRequest request, HttpServletResponse response, String reason, String detail)
            throws IOException {
        throttle.failed(request.getRemoteAddr(), reason, request.getMethod(), request.getRequestURI());
        problems.write(request, response, Problem.of(401, "unauthorized", "Unauthorized", detail), CHALLENGE);
    }

    /** Answers 429 and returns true when the request's address has failed to authenticate too often. */
    boolean refusedAddress(HttpServletRequest request, HttpServletResponse response) throws IOException {
        long seconds = throttle.refusedForSeconds(request.getRemoteAddr());
        if (seconds == 0) {
            return false;
        }
        problems.write(request, response, Problem.of(429, "too-many-failed-authentications", "Too Many Requests",
                "too many failed authentications from this address; retry after " + seconds + " s ("
                        + FailedAuthThrottle.PROPERTY + ", ingestor.http.limits.failed-auth-window)"),
                Map.of("Retry-After", Long.toString(seconds)));
        return true;
    }

    /** 403 for a demo key on a request that is not a direct loopback request, naming the property to replace it in. */
    void demoKeyOffLoopback(HttpServletRequest request, HttpServletResponse response, String why, String keyProperty)
            throws IOException {
        problems.write(request, response, Problem.of(403, "demo-key-loopback-only", "Forbidden",
                "the demo API keys are public and answer only requests made on this machine to localhost, 127.0.0.1"
                        + " or [::1] without a proxy; " + why + ". Set the SHA-256 of your own key in " + keyProperty
                        + " (printf %s \"$KEY\" | sha256sum)"),
                Map.of());
    }

    /** 403 for a metrics token anywhere but the Prometheus endpoint. */
    void metricsTokenElsewhere(HttpServletRequest request, HttpServletResponse response) throws IOException {
        problems.write(request, response, Problem.of(403, "forbidden", "Forbidden",
                "a metrics token (" + MetricsToken.PROPERTY + ") reaches /actuator/prometheus only"), Map.of());
    }

    void tooManyRequests(HttpServletRequest request, HttpServletResponse response, Problem problem,
            long retryAfterSeconds)
            throws IOException {
        problems.write(request, response, problem, Map.of("Retry-After", Long.toString(retryAfterSeconds)));
    }

    @Override
    public void handle(HttpServletRequest request, HttpServletResponse response, AccessDeniedException e)
            throws IOException {
        problems.write(request, response,
                Problem.of(403, "forbidden", "Forbidden", "this endpoint needs the admin key"), Map.of());
    }

    @Override
    public void handle(HttpServletRequest request, HttpServletResponse response, RequestRejectedException e)
            throws IOException {
        problems.write(request, response, Problem.badRequest("rejected-request",
                "the request was refused before it was read: " + e.getMessage()), Map.of());
    }
}
