package dev.ingestor.web;

import java.util.Map;

import dev.ingestor.failure.TransientFailures;
import dev.ingestor.intake.ContentTooLargeException;
import dev.ingestor.intake.IntakeFailureLog;
import dev.ingestor.intake.IntakeFailureStore;
import dev.ingestor.intake.IntakeHeaders;
import dev.ingestor.intake.RejectedDropException;
import dev.ingestor.logging.SafeText;
import dev.ingestor.metrics.IngestorMetrics;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectMapper;

/**
 * Writes HTTP replies for the API routes: JSON bodies, and problem+json errors in one place ({@link #failure},
 * the api-errors handler): a bean refuses a request by throwing {@link ApiProblemException}. Unexpected
 * failures become a problem with no internals in it; the stack trace goes to the log only.
 */
@Component
public class HttpReplies {

    private static final Logger LOG = LoggerFactory.getLogger(HttpReplies.class);
    /** Tomcat's response buffer, by default: the largest reply written in one go. */
    static final int WHOLE_REPLY_MAX = 8 * 1024;

    private final ObjectMapper json;
    private final String retryAfter;
    private final IntakeFailureLog intakeFailures;
    private final IngestorMetrics metrics;

    public HttpReplies(ObjectMapper json, HttpSettings http, IntakeFailureLog intakeFailures, IngestorMetrics metrics) {
        this.json = json;
        this.retryAfter = String.valueOf(http.getRetryAfterSeconds());
        this.intakeFailures = intakeFailures;
        this.metrics = metrics;
    }

    public void json(Exchange exchange, int status, Object body) {
        write(exchange.getMessage(), status, "application/json", toJson(body));
    }

    private void problem(Exchange exchange, Problem problem) {
        write(exchange.getMessage(), problem.status(), Problem.MEDIA_TYPE, toJson(problem));
    }

    /** Writes a reply exactly as given: status, headers and body bytes (a stored response replayed). */
    public void raw(Exchange exchange, int status, Map<String, String> headers, byte[] body) {
        Message message = exchange.getMessage();
        message.removeHeaders("*");
        message.setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        headers.forEach(message::setHeader);
        whole(message, body);
    }

    public String retryAfterSeconds() {
        return retryAfter;
    }

    public byte[] toJson(Object body) {
        try {
            return json.writeValueAsBytes(body);
        } catch (JacksonException e) {
            throw new IllegalStateException("reply cannot be written as JSON", e);
        }
    }

    /** The handler of last resort for API routes (see error-handling.camel.yaml). */
    public void failure(Exchange exchange) {
        Throwable cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        if (cause instanceof ApiProblemException answer) {
            problem(exchange, answer.problem());
            answer.headers().forEach(exchange.getMessage()::setHeader);
        } else if (cause instanceof ContentTooLargeException tooLarge) {
            LOG.info("intake rejected source=http {}", tooLarge.getMessage());
            recordRefusedPush(exchange, tooLarge.reason());
            problem(exchange, Problem.of(413, "too-large", "Content Too Large", "the file is larger than the limit of "
                    + tooLarge.limit() + " bytes (" + tooLarge.property() + "); nothing of it was kept"));
        } else if (cause instanceof RejectedDropException rejected) {
            LOG.info("intake rejected source=http {}", rejected.getMessage());
            recordRefusedPush(exchange, rejected.reason());
            problem(exchange, Problem.badRequest("rejected-file", rejected.reason()));
        } else if (TransientFailures.isTransient(cause)) {
            LOG.warn("api request failed for a passing reason, answered 503: {}", String.valueOf(cause));
            problem(exchange, Problem.of(503, "unavailable", "Service Unavailable",
                    "the service cannot complete requests right now (" + shortName(cause)
                            + "); retry the same request after " + retryAfter
                            + " seconds: that is safe, the same content or"
                            + " Idempotency-Key is never taken twice"));
            exchange.getMessage().setHeader("Retry-After", retryAfter);
        } else {
            LOG.error("api request failed unexpectedly, answered 500", cause);
            problem(exchange, Problem.of(500, "internal", "Internal Server Error",
                    "the request could not be completed; the error is logged with exchange "
                            + exchange.getExchangeId()));
        }
    }

    /**
     * A file push that intake refused is on record and counted like a refused drop; nothing of it was kept, so
     * it has no location. Only pushes (the request names source http): other callers' refusals are theirs alone.
     */
    private void recordRefusedPush(Exchange exchange, String reason) {
        Message message = exchange.getMessage();
        if (!"http".equals(message.getHeader(IntakeHeaders.SOURCE, String.class))) {
            return;
        }
        String supplier = message.getHeader(IntakeHeaders.SUPPLIER, String.class);
        exchange.setProperty(IntakeHeaders.OUTCOME, "rejected");
        metrics.intake(supplier, "http", "rejected");
        try {
            intakeFailures.record(new IntakeFailureStore.Arrival(supplier, "http",
                    message.getHeader(IntakeHeaders.FILE_NAME, String.class), null, "rejected", reason, null));
        } catch (RuntimeException e) {
            // the caller's answer must not depend on the record: it is for operators
            LOG.error("could not record the refused push of supplier={}: {}", SafeText.of(supplier),
                    SafeText.of(e.toString()));
        }
    }

    private static String shortName(Throwable cause) {
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root instanceof java.sql.SQLException || root instanceof java.net.ConnectException
                || cause instanceof org.springframework.dao.DataAccessException
                        ? "database unavailable"
                        : "temporary failure";
    }

    private static void write(Message message, int status, String contentType, byte[] body) {
        // headers of the request (path and query parameters) must not leak into the response
        message.removeHeaders("*");
        message.setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        message.setHeader(Exchange.CONTENT_TYPE, contentType);
        whole(message, body);
    }

    /**
     * A reply made whole in memory that fits the servlet's response buffer goes out with its Content-Length, in one
     * write: chunked (platform-http's default) flushes the body and then writes the closing chunk, two writes and two
     * packets a reply. A larger one stays chunked: unchunked, Camel would first copy it into a stream cache (a file
     * past the spool threshold) to count it, and it takes several writes either way.
     */
    private static void whole(Message message, byte[] body) {
        if (body != null && body.length <= WHOLE_REPLY_MAX) {
            message.setHeader(Exchange.HTTP_CHUNKED, false);
        }
        message.setBody(body);
    }
}
