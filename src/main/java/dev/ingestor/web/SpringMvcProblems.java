package dev.ingestor.web;

import java.net.URI;
import java.util.Locale;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Errors raised by Spring MVC itself (an unknown path, a wrong method, a Content-Type a route does not consume)
 * as problem+json in the API's own shape: Spring's detail, and a {@code type} naming the kind of problem, as
 * {@link Problem} has it (Spring leaves {@code type} out when it is {@code about:blank}). In place of Spring
 * Boot's {@code spring.mvc.problemdetails} handler, which stands back when this one is present.
 */
@RestControllerAdvice
public class SpringMvcProblems extends ResponseEntityExceptionHandler {

    @Override
    protected ResponseEntity<Object> createResponseEntity(Object body, HttpHeaders headers, HttpStatusCode status,
            WebRequest request) {
        if (body instanceof ProblemDetail problem
                && (problem.getType() == null || "about:blank".equals(problem.getType().toString()))) {
            problem.setType(URI.create("urn:ingestor:problem:" + slug(status)));
        }
        return super.createResponseEntity(body, headers, status, request);
    }

    private static String slug(HttpStatusCode status) {
        HttpStatus known = HttpStatus.resolve(status.value());
        return known == null ? "http-" + status.value() : known.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
