package dev.ingestor.web;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.task.TaskRejectedException;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.async.AsyncRequestTimeoutException;

/**
 * The server could not serve a request in time or at all: the request ran past
 * {@code spring.mvc.async.request-timeout}, or the queue of requests waiting for a thread is full. Both
 * are 503 problem+json with Retry-After, so a client retries later (the retry is safe: the key decides).
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
class BusyProblems {

    private static final MediaType PROBLEM = MediaType.parseMediaType(Problem.MEDIA_TYPE);

    private final long retryAfterSeconds;

    public BusyProblems(HttpSettings http) {
        this.retryAfterSeconds = http.getRetryAfterSeconds();
    }

    @ExceptionHandler(AsyncRequestTimeoutException.class)
    public ResponseEntity<Problem> timedOut(AsyncRequestTimeoutException e) {
        return answer(Problem.of(503, "timeout", "Service Unavailable", "the request was not answered within"
                + " spring.mvc.async.request-timeout; retry after " + retryAfterSeconds
                + " s with the same Idempotency-Key"));
    }

    @ExceptionHandler(TaskRejectedException.class)
    public ResponseEntity<Problem> queueFull(TaskRejectedException e) {
        return answer(Problem.of(503, "busy", "Service Unavailable", "too many requests are waiting for the server"
                + " (spring.task.execution.pool.queue-capacity); retry after " + retryAfterSeconds + " s"));
    }

    private ResponseEntity<Problem> answer(Problem problem) {
        return ResponseEntity.status(problem.status()).contentType(PROBLEM)
                .header("Retry-After", Long.toString(retryAfterSeconds)).body(problem);
    }
}
