package dev.ingestor.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.stream.Stream;

import dev.ingestor.support.IngestorTestSupport;
import jakarta.servlet.ServletContext;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A multipart upload leaves nothing on disk, whatever its answer: not the container's parts, not Camel's
 * copies of them (both in the servlet context's temporary folder), not a spooled body.
 */
class MultipartCleanupTest extends IngestorTestSupport {

    private static final String FILES = "/api/v1/suppliers/ACME/files";

    @Autowired
    ServletContext servletContext;

    @Test
    void everyAnswerLeavesTheTemporaryFoldersAsTheyWere() throws Exception {
        long before = leftovers();
        String boundary = "b" + UUID.randomUUID();

        HttpResponse<String> accepted = postForm(FILES, ACME_KEY, boundary,
                form(boundary, part(boundary, "file", "a.csv", "id,x\n1,2\n")),
                "X-File-Name", "a.csv");
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
        awaitLeftovers(before);

        HttpResponse<String> twoParts = postForm(FILES, ACME_KEY, boundary, form(boundary,
                part(boundary, "a", "a.csv", "x".repeat(5000)) + part(boundary, "b", "b.csv", "y".repeat(5000))));
        assertProblem(twoParts, 400, "exactly one file part");
        awaitLeftovers(before);

        HttpResponse<String> tooLarge = http.send(
                postRequest(FILES, ACME_KEY, "multipart/form-data; boundary=" + boundary,
                        java.net.http.HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(
                                form(boundary, part(boundary, "file", "big.csv", "z".repeat(1024 * 1024 + 10)))))),
                HttpResponse.BodyHandlers.ofString());
        assertProblem(tooLarge, 413, "ingestor.http.max-file-size");
        awaitLeftovers(before);

        HttpResponse<String> encoded = postForm(FILES, ACME_KEY, boundary,
                form(boundary, part(boundary, "file", "a.csv", "q")),
                "Content-Encoding", "br");
        assertProblem(encoded, 415, "Content-Encoding 'br'");
        HttpResponse<String> admin = post("/api/v1/admin/jobs/" + UUID.randomUUID() + "/revalidate", ADMIN_KEY,
                "multipart/form-data; boundary=" + boundary, form(boundary, part(boundary, "file", "a.csv", "q")));
        assertProblem(admin, 415, "multipart bodies are taken by file pushes only");
        awaitLeftovers(before);
        assertThat(jobCount()).isEqualTo(1);
    }

    @Test
    void malformedMultipartIs400() throws Exception {
        long before = leftovers();
        String boundary = "b" + UUID.randomUUID();
        String truncated = "--" + boundary
                + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"t.csv\"\r\n\r\n"
                + "x".repeat(20_000);
        assertProblem(post(FILES, ACME_KEY, "multipart/form-data; boundary=" + boundary,
                truncated.getBytes(StandardCharsets.UTF_8)), 400, "not well-formed multipart");
        // another boundary than the body's: no part is found
        assertProblem(post(FILES, ACME_KEY, "multipart/form-data; boundary=other",
                form(boundary, part(boundary, "file", "a.csv", "q"))), 400, "exactly one file part, it holds 0");
        assertProblem(post(FILES, ACME_KEY, "multipart/form-data", "garbage".getBytes(StandardCharsets.UTF_8)),
                400, "not well-formed multipart");
        awaitLeftovers(before);
        assertThat(jobCount()).isZero();
    }

    @Test
    void aMultipartBodyOverTheContainersPartLimitsIsRefusedNamingTheLimitBroken() throws Exception {
        long before = leftovers();
        String boundary = "b" + UUID.randomUUID();
        // 60 small parts: a body far under ingestor.http.max-file-size, over server.tomcat.max-part-count (50)
        StringBuilder parts = new StringBuilder();
        for (int i = 0; i < 60; i++) {
            parts.append(part(boundary, "p" + i, "p" + i + ".csv", "x"));
        }
        HttpResponse<String> many = postForm(FILES, ACME_KEY, boundary, form(boundary, parts.toString()));
        assertProblem(many, 413, "more than 50 parts (server.tomcat.max-part-count)");
        assertThat(many.body()).doesNotContain("ingestor.http.max-file-size");
        awaitLeftovers(before);

        // one part whose headers (here its file name) are over server.tomcat.max-part-header-size (512 bytes)
        HttpResponse<String> longHeader = postForm(FILES, ACME_KEY, boundary,
                form(boundary, part(boundary, "file", "n".repeat(600) + ".csv", "id,x\n1,2\n")));
        assertProblem(longHeader, 413,
                "headers of a part are larger than 512 bytes (server.tomcat.max-part-header-size)");
        assertThat(longHeader.body()).doesNotContain("ingestor.http.max-file-size");
        awaitLeftovers(before);
        assertThat(jobCount()).isZero();
    }

    private HttpResponse<String> postForm(String path, String key, String boundary, byte[] form, String... headers)
            throws Exception {
        return post(path, key, "multipart/form-data; boundary=" + boundary, form, headers);
    }

    private static String part(String boundary, String name, String fileName, String content) {
        return "--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + name + "\"; filename=\"" + fileName
                + "\"\r\nContent-Type: text/csv\r\n\r\n" + content + "\r\n";
    }

    private static byte[] form(String boundary, String parts) {
        return (parts + "--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
    }

    private void awaitLeftovers(long expected) {
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(leftovers()).isEqualTo(expected));
    }

    /** Files in the servlet container's temporary folder and in the body spool. */
    private long leftovers() throws IOException {
        File temp = (File) servletContext.getAttribute(ServletContext.TEMPDIR);
        return countFiles(temp.toPath()) + countFiles(DATA.resolve("spool"));
    }

    private static long countFiles(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            return all.filter(p -> !p.equals(dir)).count();
        }
    }
}
