package dev.ingestor.web;

import dev.ingestor.logging.SafeText;
import org.apache.tomcat.util.http.fileupload.impl.FileCountLimitExceededException;
import org.apache.tomcat.util.http.fileupload.impl.SizeLimitExceededException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.tomcat.autoconfigure.TomcatServerProperties;
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
 * over a limit 413 naming it, a body that is not well-formed multipart (bad boundary, truncated) 400.
 * Both are the caller's doing, never a 500. Spring reports every limit of the container's parser as an upload over
 * the size limit; the parser's own exception, its cause, tells which it was: the size
 * ({@code ingestor.http.max-file-size}), the number of parts ({@code server.tomcat.max-part-count}) or the size of a
 * part's headers ({@code server.tomcat.max-part-header-size}).
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
class MultipartProblems {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.http");
    private static final MediaType PROBLEM = MediaType.parseMediaType(Problem.MEDIA_TYPE);

    private final long maxFileSize;
    private final long maxPartHeaderSize;

    public MultipartProblems(HttpSettings http, TomcatServerProperties tomcat) {
        this.maxFileSize = http.getMaxFileSize().toBytes();
        this.maxPartHeaderSize = tomcat.getMaxPartHeaderSize().toBytes();
    }

    @ExceptionHandler(MaxUploadSizeExceededException.class)
    public ResponseEntity<Problem> tooLarge(MaxUploadSizeExceededException e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof FileCountLimitExceededException count) {
                return answer(Problem.of(413, "too-many-parts", "Content Too Large", "the multipart body has more than "
                        + count.getLimit() + " parts (server.tomcat.max-part-count); send one file part"));
            }
            // the parser's limit on a part's headers, told apart by its limit from that on the whole body, which
            // is reported by the same class
            if (cause instanceof SizeLimitExceededException size && size.getPermittedSize() == maxPartHeaderSize
                    && maxPartHeaderSize != maxFileSize + HttpSettings.MULTIPART_ENVELOPE.toBytes()) {
                return answer(Problem.of(413, "part-header-too-large", "Content Too Large",
                        "the headers of a part are larger than " + maxPartHeaderSize
                                + " bytes (server.tomcat.max-part-header-size); shorten the part's file name"));
            }
        }
        return answer(Problem.of(413, "too-large", "Content Too Large",
                "the multipart body is larger than the limit of "
                        + maxFileSize + " bytes (ingestor.http.max-file-size) for its file and "
                        + HttpSettings.MULTIPART_ENVELOPE.toBytes()
                        + " bytes for the form around it; nothing of it was kept"));
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
