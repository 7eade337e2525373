package dev.ingestor.web;

import dev.ingestor.logging.SafeText;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.multipart.MaxUploadSizeExceededException;
import org.springframework.web.multipart.MultipartException;

/**
 * Multipart bodies are parsed by Spring MVC before any route runs, so their failures are answered here:
 * over the size limit 413 naming it, a body that is not well-formed multipart (bad boundary, truncated) 400.
 * Both are the caller's doing, never a 500.
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
class MultipartProblems {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.http");
    private static final MediaType PROBLEM = MediaType.parseMediaType(Problem.MEDIA_TYPE);

    private final long maxFileSize;

    public MultipartProblems(HttpSettings http) {
        this.maxFileSize = http.getMaxFileSize().toBytes();
    }

    @ExceptionHandler(MaxUploadSizeExceededException.class)
    public ResponseEntity<Problem> tooLarge(MaxUploadSizeExceededException e) {
        return answer(
                Problem.of(413, "too-large", "Content Too Large", "the multipart body is larger than the limit of "
                        + maxFileSize + " bytes (ingestor.http.max-file-size); nothing of it was kept"));
    }

    @ExceptionHandler(MultipartException.class)
    public ResponseEntity<Problem> malformed(MultipartException e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        LOG.info("multipart body refused: {}", SafeText.of(String.valueOf(root.getMessage()), 200));
        return answer(Problem.badRequest("bad-multipart", "the body is not well-formed multipart/form-data (boundary,"
                + " part headers or the closing boundary are missing or broken); send one file part, e.g. curl -F file=@file"));
    }

    private static ResponseEntity<Problem> answer(Problem problem) {
        return ResponseEntity.status(problem.status()).contentType(PROBLEM).body(problem);
    }
}
