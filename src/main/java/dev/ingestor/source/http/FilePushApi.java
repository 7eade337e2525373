package dev.ingestor.source.http;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import dev.ingestor.api.JobView;
import dev.ingestor.intake.CommittedKeys;
import dev.ingestor.intake.FileNameRule;
import dev.ingestor.intake.IntakeGate;
import dev.ingestor.intake.IntakeHeaders;
import dev.ingestor.intake.IntakeResult;
import dev.ingestor.job.ContentKey;
import dev.ingestor.job.ImportJob;
import dev.ingestor.web.ApiProblemException;
import dev.ingestor.web.Caller;
import dev.ingestor.web.HttpReplies;
import dev.ingestor.web.HttpSettings;
import dev.ingestor.web.MediaTypes;
import dev.ingestor.web.TenantGuard;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.component.platform.http.springboot.PlatformHttpMessage;
import org.apache.camel.support.SynchronizationAdapter;
import org.springframework.stereotype.Component;
import org.springframework.web.multipart.MultipartHttpServletRequest;
import org.springframework.web.util.WebUtils;

/**
 * POST /api/v1/suppliers/{supplier}/files: a supplier pushes a file, as the raw body (name in X-File-Name) or as
 * the one file part of a multipart form. {@link #accept} hands it to the shared intake route exactly as a file
 * drop would; {@link #reply} answers from what intake made of it: 202 with a new job, 200 with the existing
 * job for content seen before: a duplicate is a success, not a conflict (docs/design.md, Idempotency rules).
 *
 * <p>Partners retry, so most pushes repeat content already taken. A raw body up to {@link #KNOWN_CONTENT_MAX}
 * is read into memory and hashed first; when its key is one this instance saw committed ({@link CommittedKeys})
 * and the job row is still there, it is answered 200 from that row at once: no bytes stored, no transaction,
 * the arrival counted on the job by {@link DuplicatePushCounts} within a second. Anything else (new content,
 * a key this instance does not know, a larger body, a multipart form) goes through intake as before.
 */
@Component
class FilePushApi {

    public static final String FILE_NAME_HEADER = "X-File-Name";
    /** Set (true) on an exchange answered from a committed key, which then skips intake. */
    public static final String KNOWN_CONTENT = "IngestorKnownContent";
    /**
     * The largest body read whole to look for its key first: pushes are mostly a few KiB, and this bounds the
     * heap a request holds; larger ones stream through intake.
     */
    static final int KNOWN_CONTENT_MAX = 256 * 1024;

    private final TenantGuard tenants;
    private final HttpReplies replies;
    private final long maxFileSize;
    private final IntakeGate gate;
    private final CommittedKeys committedKeys;
    private final DuplicatePushCounts duplicates;

    public FilePushApi(TenantGuard tenants, HttpReplies replies, HttpSettings http, IntakeGate gate,
            CommittedKeys committedKeys, DuplicatePushCounts duplicates) {
        this.tenants = tenants;
        this.replies = replies;
        this.maxFileSize = http.getMaxFileSize().toBytes();
        this.gate = gate;
        this.committedKeys = committedKeys;
        this.duplicates = duplicates;
    }

    public void accept(Exchange exchange) throws IOException {
        Message message = exchange.getMessage();
        String supplier = tenants.supplierFor(exchange, "supplier");
        String media = MediaTypes.of(message.getHeader(Exchange.CONTENT_TYPE, String.class));
        String fileName = headerText(message.getHeader(FILE_NAME_HEADER, String.class));
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
        if (!"multipart/form-data".equals(media)) {
            answerKnownContent(exchange, content, supplier, message.getHeader(IntakeHeaders.FILE_NAME, String.class));
        }
    }

    /**
     * Reads a small body whole and hashes it; answers it as a duplicate when its key is committed, else leaves
     * the bytes as the body for intake. Only a push intake would take as it is qualifies: a configured supplier,
     * a usable name and a size within every limit (intake refuses the others, as before).
     */
    private void answerKnownContent(Exchange exchange, InputStream content, String supplier, String fileName)
            throws IOException {
        if (!gate.isSupplier(supplier) || FileNameRule.problem(fileName).isPresent()) {
            return;
        }
        int most = (int) Math.min(KNOWN_CONTENT_MAX, Math.min(maxFileSize, gate.maxSize(supplier)));
        byte[] head = content.readNBytes(most + 1);
        Message message = exchange.getMessage();
        if (head.length > most) {
            // larger: intake streams it, these bytes first
            message.setBody(new SequenceInputStream(new ByteArrayInputStream(head), content));
            return;
        }
        message.setBody(head);
        String key = ContentKey.of(supplier, sha256(head)).toString();
        UUID jobId = committedKeys.jobOf(key);
        if (jobId == null) {
            return;
        }
        ImportJob seen = duplicates.arrival(jobId, key, Instant.now()).orElse(null);
        if (seen == null) {
            // retention deleted the job since: intake decides afresh
            committedKeys.forget(key);
            return;
        }
        message.setHeader(IntakeHeaders.KEY, key);
        message.setBody(new IntakeResult(seen, true));
        exchange.setProperty(IntakeHeaders.OUTCOME, "duplicate");
        exchange.setProperty(IntakeHeaders.JOB_ID, seen.id());
        exchange.setProperty(KNOWN_CONTENT, true);
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /**
     * The one file part of a multipart push. Camel counts a form's parts by name (Spring's map of them keeps the first
     * of a name), so two parts named {@code file} would pass as one and the second be dropped unread: the parts are
     * counted on the servlet request itself.
     */
    private static Path singleUpload(Message message) {
        Integer parts = fileParts(message);
        Object body = message.getBody();
        Path upload = body instanceof Path p ? p : body instanceof File f ? f.toPath() : null;
        if (parts == null || parts != 1 || upload == null) {
            throw ApiProblemException.badRequest("bad-multipart", "a multipart push must hold exactly one file part,"
                    + " it holds " + (parts == null ? 0 : parts));
        }
        return upload;
    }

    /**
     * A header's text as the client meant it: the servlet container reads a header's bytes as ISO-8859-1, so a name
     * sent in UTF-8 ({@code é} as C3 A9) arrives as {@code Ã©}, and a {@code €} as a control character U+0082 the
     * client never sent. Bytes that are UTF-8 are read as UTF-8; any others stay as ISO-8859-1 read them.
     */
    static String headerText(String value) {
        if (value == null || value.chars().allMatch(c -> c < 0x80) || value.chars().anyMatch(c -> c > 0xFF)) {
            return value;
        }
        byte[] bytes = value.getBytes(StandardCharsets.ISO_8859_1);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return value;
        }
    }

    /** The file parts of the servlet request, every one of each name; Camel's count when there is none. */
    private static Integer fileParts(Message message) {
        MultipartHttpServletRequest multipart = message instanceof PlatformHttpMessage http
                ? WebUtils.getNativeRequest(http.getRequest(), MultipartHttpServletRequest.class)
                : null;
        if (multipart == null) {
            return message.getHeader(Exchange.ATTACHMENTS_SIZE, Integer.class);
        }
        return multipart.getMultiFileMap().values().stream().mapToInt(List::size).sum();
    }

    /** After intake: 202 for a new job, 200 for content seen before. */
    public void reply(Exchange exchange) {
        IntakeResult result = exchange.getMessage().getBody(IntakeResult.class);
        JobView view = JobView.of(result.job(), exchange.getProperty(Caller.PROPERTY, Caller.class));
        replies.json(exchange, result.duplicate() ? 200 : 202, view);
        exchange.getMessage().setHeader("Location", JobView.JOBS_PATH + view.id());
    }
}
