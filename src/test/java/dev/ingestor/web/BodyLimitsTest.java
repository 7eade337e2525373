package dev.ingestor.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One size limit for every body, on every spelling of a path and every method: file pushes
 * (ingestor.http.max-file-size, 1MB in tests), item batches (max-json-size, 64KB) and everything else
 * (max-body-size, 64KB by default).
 */
class BodyLimitsTest extends IngestorTestSupport {

    /**
     * A declared length over the limit is answered at once: the client sends headers only, and the 413
     * arrives without a byte of the (announced) body. Any path spelling that routes to the push counts.
     */
    @ParameterizedTest
    @ValueSource(strings = {
            "/api/v1/suppliers/ACME/files",
            "/api/v1/suppliers/ACME/files;x=1",
            "/api/v1/suppliers/ACME/%66iles",
            "/api/v1/suppliers/ACME/items;jsessionid=1",
            "/api/v1/admin/jobs/" + "00000000-0000-0000-0000-000000000000" + "/revalidate",
            "/api/v1/%61dmin/jobs/00000000-0000-0000-0000-000000000000/reprocess",
            "/api/v1/nothing/here"})
    void aDeclaredLengthOverTheLimitIs413WithoutReadingTheBody(String path) throws Exception {
        String answer = headersOnly("POST", path, 5_000_000_000L);
        assertThat(answer).startsWith("HTTP/1.1 413");
        assertThat(answer).contains("application/problem+json").contains("ingestor.http.max-");
    }

    /** Both paths of item batches have the item-batch limit, not the general one. */
    @ParameterizedTest
    @ValueSource(strings = {"/api/v1/suppliers/ACME/items", "/api/v1/partners/ACME/items"})
    void bothItemBatchPathsHaveTheItemBatchLimit(String path) throws Exception {
        assertThat(headersOnly("POST", path, 5_000_000_000L)).startsWith("HTTP/1.1 413")
                .contains("ingestor.http.max-json-size");
    }

    /** Double slashes never reach a route: the request firewall refuses them before the body is read. */
    @Test
    void aDoubleSlashSpellingIsRefusedBeforeTheBodyIsRead() throws Exception {
        String answer = headersOnly("POST", "/api/v1//suppliers/ACME//files", 5_000_000_000L);
        assertThat(answer).startsWith("HTTP/1.1 400").contains("application/problem+json")
                .contains("refused before it was read");
    }

    @Test
    void adminActionsAndOtherMethodsHaveTheGeneralLimit() throws Exception {
        String admin = headersOnly("DELETE", "/api/v1/admin/idempotency-keys/ACME/k1", 100_000);
        assertThat(admin).startsWith("HTTP/1.1 413").contains("ingestor.http.max-body-size");
        // a body just under the file limit is fine for a file push but not for an admin action
        byte[] body = new byte[200_000];
        HttpResponse<String> revalidate = post("/api/v1/admin/jobs/" + UUID.randomUUID() + "/revalidate", ADMIN_KEY,
                "application/json", body);
        assertProblem(revalidate, 413, "65536 bytes (ingestor.http.max-body-size)");
    }

    /** Without a declared length the body is read up to the limit and refused whole, never cut and stored. */
    @Test
    void aChunkedBodyOverTheLimitIsRefusedNotTruncated() throws Exception {
        byte[] big = new byte[100_000];
        HttpResponse<String> admin = http.send(postRequest("/api/v1/admin/jobs/" + UUID.randomUUID() + "/revalidate",
                ADMIN_KEY, "application/json",
                HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big))),
                HttpResponse.BodyHandlers.ofString());
        assertProblem(admin, 413, "ingestor.http.max-body-size");

        byte[] file = new byte[1024 * 1024 + 1];
        HttpResponse<String> push = http.send(postRequest("/api/v1/suppliers/ACME/files;x=1", ACME_KEY,
                "application/octet-stream",
                HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(file))),
                HttpResponse.BodyHandlers.ofString());
        assertProblem(push, 413, "ingestor.http.max-file-size");
        assertThat(jobCount()).isZero();

        byte[] exact = new byte[1024 * 1024];
        exact[0] = 'x';
        HttpResponse<String> fits = http.send(postRequest("/api/v1/suppliers/ACME/files", ACME_KEY,
                "application/octet-stream",
                HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(exact))),
                HttpResponse.BodyHandlers.ofString());
        assertThat(fits.statusCode()).as(fits.body()).isEqualTo(202);
        assertThat(jdbc.queryForObject("SELECT size FROM import_job", Long.class)).isEqualTo(exact.length);
    }

    /** Sends the request line and headers only, and reads whatever the server answers before any body. */
    private String headersOnly(String method, String path, long contentLength) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write((method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: " + ADMIN_KEY
                    + "\r\nContent-Type: application/octet-stream\r\nContent-Length: " + contentLength + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[8192];
            StringBuilder answer = new StringBuilder();
            try {
                int n;
                while ((n = in.read(buffer)) > 0) {
                    answer.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
                    if (answer.indexOf("\r\n\r\n") > 0 && answer.indexOf("}") > 0) {
                        break;
                    }
                }
            } catch (java.net.SocketTimeoutException e) {
                // the server waits for the body: the answer so far is all there is
            }
            return answer.toString();
        }
    }
}
