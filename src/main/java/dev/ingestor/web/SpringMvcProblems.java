package dev.ingestor.web;

import java.net.URI;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.util.Locale;

import dev.ingestor.logging.SafeText;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.HttpMediaTypeNotSupportedException;
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

    /**
     * A Content-Type Spring cannot parse is answered 415 with Spring's detail "Could not parse Content-Type.", which
     * names nothing: most often it names a charset Java does not know ({@code charset=binary} and {@code unknown-8bit}
     * are what {@code file --mime} writes). The detail names the header and what is wrong in it.
     */
    @Override
    protected ResponseEntity<Object> handleHttpMediaTypeNotSupported(HttpMediaTypeNotSupportedException ex,
            HttpHeaders headers, HttpStatusCode status, WebRequest request) {
        String contentType = request.getHeader(HttpHeaders.CONTENT_TYPE);
        if (ex.getContentType() == null && contentType != null && !contentType.isBlank()) {
            ex.getBody().setDetail(unparsable(contentType));
        }
        return super.handleHttpMediaTypeNotSupported(ex, headers, status, request);
    }

    static String unparsable(String contentType) {
        String named = "the Content-Type '" + SafeText.of(contentType, 100) + "'";
        String[] parts = contentType.split(";");
        for (int i = 1; i < parts.length; i++) {
            String[] parameter = parts[i].split("=", 2);
            if (parameter.length == 2 && parameter[0].trim().equalsIgnoreCase("charset")) {
                String charset = parameter[1].trim().replace("\"", "");
                if (!isKnown(charset)) {
                    return named + " names charset '" + SafeText.of(charset, 40) + "', which is not known: leave the"
                            + " charset out (a pushed file is read in its supplier's charset, ingestor.suppliers.<CODE>"
                            + ".charset, and an item batch as UTF-8, whatever the header names)";
                }
            }
        }
        return named + " is not a media type such as text/csv or application/json (type/subtype; name=value)";
    }

    private static boolean isKnown(String charset) {
        try {
            return Charset.isSupported(charset);
        } catch (IllegalCharsetNameException e) {
            return false;
        }
    }

    private static String slug(HttpStatusCode status) {
        HttpStatus known = HttpStatus.resolve(status.value());
        return known == null ? "http-" + status.value() : known.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
