package dev.ingestor.source.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** POST /api/v1/suppliers/{supplier}/files on a real server and PostgreSQL. */
class HttpFilePushTest extends IngestorTestSupport {

    private static final String FILES = "/api/v1/suppliers/ACME/files";
    private static final String CSV = "source_id,source_version,sku,quantity,delivery_date\nH-1,1,SKU-1,5,2026-12-01\n";

    @Autowired
    ObjectMapper mapper;

    private HttpResponse<String> push(String path, String key, byte[] body, String... headers) throws Exception {
        return post(path, key, "application/octet-stream", body, headers);
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    @Test
    void aNewFileIs202WithItsJobAndTheSameBytesAgainAre200WithTheSameJob() throws Exception {
        byte[] body = CSV.getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> first = push(FILES, ACME_KEY, body, "X-File-Name", "advice-1.csv");
        assertThat(first.statusCode()).isEqualTo(202);
        JsonNode job = mapper.readTree(first.body());
        assertThat(job.get("state").asString()).isEqualTo("RECEIVED");
        assertThat(job.get("key").asString()).isEqualTo("ACME:" + sha256(body));
        assertThat(job.get("fileName").asString()).isEqualTo("advice-1.csv");
        assertThat(job.get("source").asString()).isEqualTo("http");
        assertThat(job.get("submittedBy").asString()).as("who submitted: the key's supplier")
                .isEqualTo("supplier:ACME");
        assertThat(job.get("links").get("self").asString()).isEqualTo("/api/v1/jobs/" + job.get("id").asString());
        assertThat(first.headers().firstValue("Location")).hasValue("/api/v1/jobs/" + job.get("id").asString());

        // another name, another connection: the same content is the same job, and a success (docs/design.md,
        // Idempotency rules)
        HttpResponse<String> again = push(FILES, ACME_KEY, body, "X-File-Name", "advice-1-retry.csv");
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(mapper.readTree(again.body()).get("id").asString()).isEqualTo(job.get("id").asString());
        assertThat(mapper.readTree(again.body()).get("duplicateCount").asInt()).isEqualTo(1);
        assertThat(jobCount()).isEqualTo(1);

        // the same bytes pushed by the admin for ACME: a duplicate, and the first submitter stays
        HttpResponse<String> byAdmin = push(FILES, ADMIN_KEY, body);
        assertThat(byAdmin.statusCode()).isEqualTo(200);
        assertThat(mapper.readTree(byAdmin.body()).get("submittedBy").asString()).isEqualTo("supplier:ACME");
    }

    @Test
    void aFilePushedWithTheAdminKeyRecordsTheAdminAsItsSubmitter() throws Exception {
        HttpResponse<String> pushed = push(FILES, ADMIN_KEY, CSV.getBytes(StandardCharsets.UTF_8), "X-File-Name",
                "by-admin.csv");
        assertThat(pushed.statusCode()).isEqualTo(202);
        JsonNode job = mapper.readTree(pushed.body());
        assertThat(job.get("submittedBy").asString()).isEqualTo("admin");
        assertThat(mapper.readTree(get("/api/v1/jobs/" + job.get("id").asString(), ACME_KEY).body()).get("submittedBy")
                .asString())
                .isEqualTo("admin");
        assertThat(jdbc.queryForObject("SELECT submitted_by FROM import_job", String.class)).isEqualTo("admin");
    }

    /**
     * A name sent in UTF-8 is the job's name as sent: the servlet container reads a header's bytes as ISO-8859-1, so
     * {@code é} arrived as {@code Ã©} and {@code €} as a control character. Sent over a socket: Java's client writes
     * a header's characters as ASCII.
     */
    @Test
    void aFileNameSentInUtf8IsTheJobsName() throws Exception {
        String name = "Lieferung-\u20ac-\u00e9t\u00e9-" + UUID.randomUUID() + ".csv";
        String answer = rawPush(name);
        assertThat(answer).as(answer).startsWith("HTTP/1.1 202");
        assertThat(mapper.readTree(answer.substring(answer.indexOf("\r\n\r\n") + 4)).get("fileName").asString())
                .isEqualTo(name);
        assertThat(FilePushApi.headerText("caf\u00e9.csv")).as("not UTF-8: as ISO-8859-1 read it")
                .isEqualTo("caf\u00e9.csv");

        // a control character in any header, refused by the container or by the firewall: a 400 problem, never the
        // container's error page
        for (String control : List.of("\u0001", "\u007f")) {
            String refused = rawPush("a" + control + "b.csv");
            assertThat(refused).as(refused).startsWith("HTTP/1.1 400").contains("application/problem+json");
        }
    }

    /** A push over a socket, its headers' bytes as UTF-8 (Java's client writes a header's characters as ASCII). */
    private String rawPush(String fileName) throws Exception {
        byte[] body = (CSV + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + FILES + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: " + ACME_KEY
                    + "\r\nContent-Type: application/octet-stream\r\nConnection: close\r\nContent-Length: "
                    + body.length + "\r\nX-File-Name: " + fileName + "\r\n\r\n").getBytes(StandardCharsets.UTF_8));
            out.write(body);
            out.flush();
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void fiftyConcurrentPushesOfTheSameBytesMakeOneJob() throws Exception {
        byte[] body = ("source_id,sku,quantity,delivery_date\nC-1,SKU,1,2026-12-01\n" + UUID.randomUUID())
                .getBytes(StandardCharsets.UTF_8);
        ExecutorService pool = Executors.newFixedThreadPool(50);
        try {
            List<Callable<HttpResponse<String>>> pushes = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                // more at once than a key may have in flight (max-concurrent-per-key): the ones refused 429 wait
                // as told and push again, as a partner's client does
                pushes.add(() -> {
                    HttpResponse<String> answer = push(FILES, ACME_KEY, body);
                    while (answer.statusCode() == 429) {
                        Thread.sleep(1000L * Long.parseLong(answer.headers().firstValue("Retry-After").orElse("1")));
                        answer = push(FILES, ACME_KEY, body);
                    }
                    return answer;
                });
            }
            List<Integer> statuses = new ArrayList<>();
            List<String> ids = new ArrayList<>();
            for (Future<HttpResponse<String>> f : pool.invokeAll(pushes)) {
                HttpResponse<String> r = f.get();
                statuses.add(r.statusCode());
                ids.add(mapper.readTree(r.body()).get("id").asString());
            }
            assertThat(statuses).filteredOn(s -> s == 202).hasSize(1);
            assertThat(statuses).filteredOn(s -> s == 200).hasSize(49);
            assertThat(ids).containsOnly(ids.get(0));
            assertThat(jobCount()).isEqualTo(1);
            // repeats answered from the committed key are written to the job in batches, within seconds
            await().atMost(Duration.ofSeconds(5)).untilAsserted(
                    () -> assertThat(jdbc.queryForObject("SELECT duplicate_count FROM import_job", Integer.class))
                            .isEqualTo(49));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void multipartFileDropAndRawPushOfTheSameBytesAreOneJob() throws Exception {
        byte[] body = ("source_id,sku,quantity,delivery_date\nM-1,SKU,1,2026-12-01\n").getBytes(StandardCharsets.UTF_8);
        String boundary = "----ingestor" + UUID.randomUUID();
        byte[] multipart = ("--" + boundary
                + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"form.csv\"\r\n"
                + "Content-Type: text/csv\r\n\r\n" + new String(body, StandardCharsets.UTF_8) + "\r\n--" + boundary
                + "--\r\n")
                .getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> viaForm = post(FILES, ACME_KEY, "multipart/form-data; boundary=" + boundary, multipart);
        assertThat(viaForm.statusCode()).as(viaForm.body()).isEqualTo(202);
        JsonNode job = mapper.readTree(viaForm.body());
        assertThat(job.get("fileName").asString()).isEqualTo("form.csv");
        assertThat(job.get("size").asLong()).isEqualTo(body.length);

        HttpResponse<String> viaRaw = post(FILES, ACME_KEY, "text/csv", body);
        assertThat(viaRaw.statusCode()).isEqualTo(200);
        assertThat(mapper.readTree(viaRaw.body()).get("id").asString()).isEqualTo(job.get("id").asString());

        drop("ACME", "dropped.csv", body);
        awaitFiles(INBOX.resolve("ACME").resolve(".duplicate"), 1);
        assertThat(jobCount()).isEqualTo(1);
        // a duplicate from another source: the job keeps its first submitter
        assertThat(jdbc.queryForObject("SELECT submitted_by FROM import_job", String.class)).isEqualTo("supplier:ACME");
    }

    /**
     * A file of exactly ingestor.http.max-file-size (1MB in tests) is within the limit however it is sent: as a
     * multipart part it is taken like the raw body, with or without a declared length, not refused 413 naming a
     * limit it did not break because of the form's boundaries and part headers around it.
     */
    @Test
    void aFileAtTheLimitIsTakenAsAMultipartPartAsWellAsARawBody() throws Exception {
        byte[] file = new byte[1024 * 1024];
        new java.util.Random(5).nextBytes(file);
        String boundary = "----ingestor" + UUID.randomUUID();
        java.io.ByteArrayOutputStream form = new java.io.ByteArrayOutputStream();
        form.writeBytes(
                ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"at-limit.bin\""
                        + "\r\nContent-Type: application/octet-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        form.writeBytes(file);
        form.writeBytes(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII));
        String type = "multipart/form-data; boundary=" + boundary;
        HttpResponse<String> viaForm = post(FILES, ACME_KEY, type, form.toByteArray());
        assertThat(viaForm.statusCode()).as(viaForm.body()).isEqualTo(202);
        assertThat(mapper.readTree(viaForm.body()).get("size").asLong()).isEqualTo(file.length);
        HttpResponse<String> chunked = http.send(postRequest(FILES, ACME_KEY, type,
                HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(form.toByteArray()))),
                HttpResponse.BodyHandlers.ofString());
        assertThat(chunked.statusCode()).as(chunked.body()).isEqualTo(200);
        assertThat(post(FILES, ACME_KEY, "application/octet-stream", file).statusCode()).isEqualTo(200);
        assertThat(jobCount()).isEqualTo(1);
    }

    @Test
    void aChunkedBodyIsStreamedIntoTheRawStore() throws Exception {
        byte[] body = new byte[700_000];
        new java.util.Random(3).nextBytes(body);
        HttpResponse<String> response = http.send(postRequest(FILES, ACME_KEY, "application/octet-stream",
                HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        assertThat(mapper.readTree(response.body()).get("key").asString()).isEqualTo("ACME:" + sha256(body));
        String sha = sha256(body);
        assertThat(DATA.resolve("raw").resolve("ACME").resolve(sha.substring(0, 2)).resolve(sha))
                .hasBinaryContent(body);
    }

    /**
     * The size is checked before the route reads the body: a declared length over the limit is answered while
     * the client has sent only a few bytes of it (a route would wait for the rest, and the socket would time
     * out with no answer), and a chunked body is read no further than the limit and refused whole.
     */
    @Test
    void bodiesOverTheLimitAre413BeforeTheyAreReadAndNothingIsKept() throws Exception {
        List<Path> rawBefore = rawFiles();
        String declared = announceAndSendOnly(FILES, 5_000_000, "source_id,sku".getBytes(StandardCharsets.UTF_8));
        assertThat(declared).startsWith("HTTP/1.1 413").contains("application/problem+json")
                .contains(
                        "the body of 5000000 bytes is larger than the limit of 1048576 bytes (ingestor.http.max-file-size)");

        byte[] big = new byte[1024 * 1024 + 1];
        new java.util.Random(11).nextBytes(big);
        HttpResponse<String> chunked = http.send(postRequest(FILES, ACME_KEY, "application/octet-stream",
                HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(big))),
                HttpResponse.BodyHandlers.ofString());
        assertProblem(chunked, 413, "the body is larger than the limit of 1048576 bytes (ingestor.http.max-file-size)");
        assertThat(jobCount()).isZero();
        assertThat(keyCount()).isZero();
        assertThat(rawFiles()).as("the raw store").isEqualTo(rawBefore);
    }

    /** Every file in the raw store, of every supplier. */
    private static List<Path> rawFiles() throws java.io.IOException {
        Path raw = DATA.resolve("raw");
        if (!Files.isDirectory(raw)) {
            return List.of();
        }
        try (java.util.stream.Stream<Path> all = Files.walk(raw)) {
            return all.filter(Files::isRegularFile).sorted().toList();
        }
    }

    /**
     * Announces a body of {@code declaredLength} bytes, sends only {@code start} of it, and returns what the
     * server answers within five seconds (empty when it is still waiting for the rest).
     */
    private String announceAndSendOnly(String path, long declaredLength, byte[] start) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: " + ACME_KEY
                    + "\r\nContent-Type: application/octet-stream\r\nContent-Length: " + declaredLength + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.write(start);
            out.flush();
            StringBuilder answer = new StringBuilder();
            byte[] buffer = new byte[8192];
            try {
                for (int n = socket.getInputStream().read(buffer); n > 0; n = socket.getInputStream().read(buffer)) {
                    answer.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
                    if (answer.indexOf("\r\n\r\n") > 0 && answer.indexOf("}") > 0) {
                        break;
                    }
                }
            } catch (SocketTimeoutException e) {
                // no (complete) answer: the server is still reading the announced body
            }
            return answer.toString();
        }
    }

    @Test
    void callersAreAuthenticatedAndScopedToTheirOwnSupplier() throws Exception {
        byte[] body = CSV.getBytes(StandardCharsets.UTF_8);
        assertProblem(push(FILES, null, body), 401, "needs a key");
        HttpResponse<String> wrong = push(FILES, "not-a-key", body);
        assertProblem(wrong, 401, "not valid");
        assertThat(wrong.headers().firstValue("WWW-Authenticate")).isPresent();
        // GLOBEX's key cannot push as ACME: ACME looks like no supplier at all to it
        assertProblem(push(FILES, GLOBEX_KEY, body), 404, "no supplier 'ACME'");
        assertProblem(push("/api/v1/suppliers/NOPE/files", ADMIN_KEY, body), 404, "no supplier 'NOPE'");
        assertThat(jobCount()).isZero();

        HttpResponse<String> accepted = http.send(
                HttpRequest.newBuilder(uri(FILES)).header("Authorization", "Bearer " + ACME_KEY)
                        .header("Content-Type", "text/csv").POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(accepted.statusCode()).isEqualTo(202);
        String id = mapper.readTree(accepted.body()).get("id").asString();

        assertThat(get("/api/v1/jobs/" + id, ACME_KEY).statusCode()).isEqualTo(200);
        assertProblem(get("/api/v1/jobs/" + id, GLOBEX_KEY), 404, "no job");
        assertProblem(get("/api/v1/jobs/" + id + "/records", GLOBEX_KEY), 404, "no job");
        assertProblem(get("/api/v1/jobs/" + id, null), 401, "needs a key");
        assertThat(get("/api/v1/jobs/" + id, ADMIN_KEY).statusCode()).isEqualTo(200);
        assertThat(mapper.readTree(get("/api/v1/jobs", GLOBEX_KEY).body()).get("total").asLong()).isZero();
        assertThat(mapper.readTree(get("/api/v1/jobs", ACME_KEY).body()).get("total").asLong()).isEqualTo(1);
        assertProblem(get("/api/v1/jobs?supplier=ACME", GLOBEX_KEY), 404, "no supplier 'ACME'");
    }

    @Test
    void repliesGoOutWholeWithTheirLengthNotInChunks() throws Exception {
        byte[] body = CSV.getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> created = push(FILES, ACME_KEY, body);
        HttpResponse<String> again = push(FILES, ACME_KEY, body);
        HttpResponse<String> refused = push(FILES, ACME_KEY, new byte[0]);
        assertThat(List.of(created.statusCode(), again.statusCode(), refused.statusCode())).containsExactly(202, 200,
                400);
        for (HttpResponse<String> reply : List.of(created, again, refused)) {
            assertThat(reply.headers().firstValue("Transfer-Encoding")).as("%s", reply).isEmpty();
            assertThat(reply.headers().firstValueAsLong("Content-Length")).as("%s", reply)
                    .hasValue(reply.body().getBytes(StandardCharsets.UTF_8).length);
        }
    }

    /**
     * A Content-Type naming a charset Java does not know ({@code charset=binary} or {@code unknown-8bit}, as
     * {@code file --mime} writes them) cannot be parsed: the 415 names the charset, not only that the header could not
     * be read.
     */
    @Test
    void aContentTypeThatCannotBeParsedIs415NamingWhatIsWrongInIt() throws Exception {
        byte[] body = CSV.getBytes(StandardCharsets.UTF_8);
        assertProblem(post(FILES, ACME_KEY, "application/octet-stream; charset=binary", body), 415,
                "charset 'binary', which is not known");
        assertProblem(post(FILES, ACME_KEY, "text/csv; charset=\"unknown-8bit\"", body), 415,
                "charset 'unknown-8bit', which is not known");
        assertProblem(post(FILES, ACME_KEY, "text", body), 415, "the Content-Type 'text' is not a media type");
        assertProblem(post("/api/v1/suppliers/ACME/items", ACME_KEY, "application/json; charset=utf-9", body,
                "Idempotency-Key", "k-1"), 415, "charset 'utf-9', which is not known");
        assertThat(jobCount()).isZero();
    }

    @Test
    void badRequestsAreProblemsNamingWhatWasWrong() throws Exception {
        byte[] body = CSV.getBytes(StandardCharsets.UTF_8);
        assertProblem(post(FILES, ACME_KEY, "application/x-www-form-urlencoded", body), 415, "x-www-form-urlencoded");
        assertProblem(post(FILES, ACME_KEY, "image/png", body), 415, "image/png");
        assertThat(post(FILES, ACME_KEY, "text/plain", body).statusCode()).isEqualTo(202);
        truncateAll();
        assertProblem(push("/api/v1/suppliers/AC%24ME/files", ACME_KEY, body), 400, "not a supplier code");
        assertProblem(push(FILES, ACME_KEY, new byte[0]), 400, "no body");
        assertProblem(push(FILES, ACME_KEY, body, "X-File-Name", "../../etc/passwd"), 400,
                "the file name contains '/' at position 3");
        String boundary = "b" + UUID.randomUUID();
        byte[] twoParts = ("--" + boundary
                + "\r\nContent-Disposition: form-data; name=\"a\"; filename=\"a.csv\"\r\n\r\nx\r\n"
                + "--" + boundary + "\r\nContent-Disposition: form-data; name=\"b\"; filename=\"b.csv\"\r\n\r\ny\r\n--"
                + boundary + "--\r\n")
                .getBytes(StandardCharsets.UTF_8);
        assertProblem(post(FILES, ACME_KEY, "multipart/form-data; boundary=" + boundary, twoParts), 400,
                "exactly one file part");
        // two parts of one name: the multipart map keeps the first of a name, so they look like one part to Camel
        byte[] twoOfOneName = ("--" + boundary
                + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n\r\n" + CSV + "\r\n"
                + "--" + boundary
                + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"b.csv\"\r\n\r\ny\r\n--"
                + boundary + "--\r\n")
                .getBytes(StandardCharsets.UTF_8);
        assertProblem(post(FILES, ACME_KEY, "multipart/form-data; boundary=" + boundary, twoOfOneName), 400,
                "exactly one file part, it holds 2");
        assertThat(jobCount()).isZero();
    }

    @Test
    void theOpenApiDocumentDescribesThePushEndpoints() throws Exception {
        HttpResponse<String> response = get("/api/v1/openapi.json", null);
        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode paths = mapper.readTree(response.body()).get("paths");
        assertThat(paths.has("/api/v1/suppliers/{supplier}/files")).as(response.body()).isTrue();
        assertThat(paths.has("/api/v1/suppliers/{supplier}/items")).isTrue();
        assertThat(paths.has("/api/v1/jobs/{id}")).isTrue();
        // the older path of item batches is still described, marked deprecated
        assertThat(paths.get("/api/v1/partners/{partner}/items").get("post").path("deprecated").asBoolean()).isTrue();
        JsonNode items = paths.get("/api/v1/suppliers/{supplier}/items").get("post");
        assertThat(items.get("responses").has("409")).isTrue();
        assertThat(items.get("responses").has("422")).isTrue();
        assertThat(items.get("parameters").toString()).contains("Idempotency-Key");
    }
}
