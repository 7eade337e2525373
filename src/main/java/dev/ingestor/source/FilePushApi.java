package dev.ingestor.source;

import dev.ingestor.web.ApiProblemException;
import dev.ingestor.web.MediaTypes;
import dev.ingestor.web.TenantGuard;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

import dev.ingestor.web.HttpReplies;
import dev.ingestor.web.JobView;
import dev.ingestor.config.IngestorProperties;
import dev.ingestor.intake.IntakeHeaders;
import dev.ingestor.job.IntakeResult;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.support.SynchronizationAdapter;
import org.springframework.stereotype.Component;

/**
 * POST /api/v1/suppliers/{supplier}/files: a supplier pushes a file, as the raw body (name in X-File-Name) or as
 * the one file part of a multipart form. {@link #accept} hands it to the shared intake route exactly as a file
 * drop would; {@link #reply} answers from what intake made of it: 202 with a new job, 200 with the existing
 * job for content seen before: a duplicate is a success, not a conflict (docs/design.md, Idempotency rules).
 */
@Component
public class FilePushApi {

    public static final String FILE_NAME_HEADER = "X-File-Name";

    private final TenantGuard tenants;
    private final HttpReplies replies;
    private final long maxFileSize;

    public FilePushApi(TenantGuard tenants, HttpReplies replies, IngestorProperties properties) {
        this.tenants = tenants;
        this.replies = replies;
        this.maxFileSize = properties.getHttp().getMaxFileSize().toBytes();
    }

    public void accept(Exchange exchange) throws IOException {
        Message message = exchange.getMessage();
        String supplier = tenants.supplierFor(exchange, "supplier");
        String media = MediaTypes.of(message.getHeader(Exchange.CONTENT_TYPE, String.class));
        String fileName = message.getHeader(FILE_NAME_HEADER, String.class);
        InputStream content;
        if ("multipart/form-data".equals(media)) {
            Path upload = singleUpload(message);
            // Spring wrote the part to a temporary file; it goes once the exchange is done, whatever the outcome
            exchange.getExchangeExtension().addOnCompletion(new SynchronizationAdapter() {
                @Override
                public void onDone(Exchange done) {
                    try {
                        Files.deleteIfExists(upload);
                    } catch (IOException ignored) {
                        // the servlet container's temporary folder is cleaned on restart
                    }
                }
            });
            if (fileName == null) {
                fileName = message.getHeader(Exchange.FILE_NAME, String.class);
            }
            content = Files.newInputStream(upload);
        } else {
            // the content types taken are the route's consumes list: Spring MVC answers any other with 415
            content = message.getBody(InputStream.class);
            if (content == null) {
                throw ApiProblemException.badRequest("empty-body", "the request has no body: send the file's bytes"
                        + " (curl --data-binary @file -H 'Content-Type: application/octet-stream') or a multipart form (curl -F file=@file)");
            }
        }
        message.setHeader(IntakeHeaders.SUPPLIER, supplier);
        message.setHeader(IntakeHeaders.SOURCE, "http");
        message.setHeader(IntakeHeaders.SUBMITTED_BY, TenantGuard.caller(exchange).submitter());
        message.setHeader(IntakeHeaders.FILE_NAME, fileName == null || fileName.isBlank() ? "http-push" : fileName);
        message.setHeader(IntakeHeaders.MAX_SIZE, maxFileSize);
        message.setBody(content);
    }

    private static Path singleUpload(Message message) {
        Integer parts = message.getHeader(Exchange.ATTACHMENTS_SIZE, Integer.class);
        Object body = message.getBody();
        Path upload = body instanceof Path p ? p : body instanceof File f ? f.toPath() : null;
        if (parts == null || parts != 1 || upload == null) {
            throw ApiProblemException.badRequest("bad-multipart", "a multipart push must hold exactly one file part,"
                    + " it holds " + (parts == null ? 0 : parts));
        }
        return upload;
    }

    /** After intake: 202 for a new job, 200 for content seen before. */
    public void reply(Exchange exchange) {
        IntakeResult result = exchange.getMessage().getBody(IntakeResult.class);
        JobView view = JobView.of(result.job());
        replies.json(exchange, result.duplicate() ? 200 : 202, view);
        exchange.getMessage().setHeader("Location", JobView.JOBS_PATH + view.id());
    }
}
