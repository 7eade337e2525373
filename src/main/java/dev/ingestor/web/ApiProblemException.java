package dev.ingestor.web;

import java.util.Map;

/**
 * A request the API answers with a problem (400, 401, 403, 404, 409, 413, 415, 422...): thrown by the beans the
 * HTTP routes call and written as problem+json by the routes' error handling (api-errors, {@link
 * HttpReplies#failure}); the one way a route answers with an error. No stack trace reaches the caller
 * or the log for these: they are the caller's mistakes, not ours.
 */
public class ApiProblemException extends RuntimeException {

    private final transient Problem problem;
    private final transient Map<String, String> headers;

    public ApiProblemException(Problem problem) {
        this(problem, Map.of());
    }

    public ApiProblemException(Problem problem, Map<String, String> headers) {
        super(problem.detail(), null, false, false);
        this.problem = problem;
        this.headers = headers;
    }

    public Problem problem() {
        return problem;
    }

    public Map<String, String> headers() {
        return headers;
    }

    public static ApiProblemException badRequest(String slug, String detail) {
        return new ApiProblemException(Problem.badRequest(slug, detail));
    }

    public static ApiProblemException notFound(String detail) {
        return new ApiProblemException(Problem.notFound(detail));
    }

    /** 409: the request is well formed, but what it asks for is not possible in the current state. */
    public static ApiProblemException conflict(String slug, String detail) {
        return new ApiProblemException(Problem.of(409, slug, "Conflict", detail));
    }

    public static ApiProblemException tooLarge(String detail) {
        return new ApiProblemException(Problem.of(413, "too-large", "Content Too Large", detail));
    }
}
