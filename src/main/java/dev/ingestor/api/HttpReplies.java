package dev.ingestor.api;


import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.jdbc.CannotGetJdbcConnectionException;
import org.springframework.stereotype.Component;

/**
 * Writes HTTP replies for the API routes: JSON bodies and problem+json errors. Unexpected failures become a
 * problem with no internals in it; the stack trace goes to the log only.
 */
@Component
public class HttpReplies {

    private static final Logger LOG = LoggerFactory.getLogger(HttpReplies.class);
    static final String RETRY_AFTER_SECONDS = "5";

    private final ObjectMapper json;

    public HttpReplies(ObjectMapper json) {
        this.json = json;
    }

    public void json(Exchange exchange, int status, Object body) {
        write(exchange.getMessage(), status, "application/json", body);
    }

    public void problem(Exchange exchange, Problem problem) {
        write(exchange.getMessage(), problem.status(), Problem.MEDIA_TYPE, problem);
    }

    /** The handler of last resort for API routes (see error-handling.camel.yaml). */
    public void failure(Exchange exchange) {
        Throwable cause = exchange.getProperty(Exchange.EXCEPTION_CAUGHT, Throwable.class);
        if (isTransient(cause)) {
            LOG.warn("api request failed for a passing reason, answered 503: {}", String.valueOf(cause));
            problem(exchange, Problem.of(503, "unavailable", "Service Unavailable",
                    "the service cannot reach its database right now; retry after " + RETRY_AFTER_SECONDS + " seconds"));
            exchange.getMessage().setHeader("Retry-After", RETRY_AFTER_SECONDS);
        } else {
            LOG.error("api request failed unexpectedly, answered 500", cause);
            problem(exchange, Problem.of(500, "internal", "Internal Server Error",
                    "the request could not be completed; the error is logged with exchange " + exchange.getExchangeId()));
        }
    }

    static boolean isTransient(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof TransientDataAccessException || t instanceof DataAccessResourceFailureException
                    || t instanceof CannotGetJdbcConnectionException || t instanceof java.sql.SQLTransientException
                    || t instanceof java.net.ConnectException) {
                return true;
            }
        }
        return false;
    }

    private void write(Message message, int status, String contentType, Object body) {
        // headers of the request (path and query parameters) must not leak into the response
        message.removeHeaders("*");
        message.setHeader(Exchange.HTTP_RESPONSE_CODE, status);
        message.setHeader(Exchange.CONTENT_TYPE, contentType);
        try {
            message.setBody(json.writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("reply cannot be written as JSON", e);
        }
    }

}
