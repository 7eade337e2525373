package dev.ingestor.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.UUID;
import java.util.zip.GZIPOutputStream;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;

/** Content-Encoding: gzip is decoded with the limit on the decoded bytes; any other encoding is a 415. */
class ContentEncodingTest extends IngestorTestSupport {

    private static final String FILES = "/api/v1/suppliers/ACME/files";
    private static final String CSV = "source_id,source_version,sku,quantity,delivery_date\nG-1,1,SKU-1,5,2026-12-01\n";

    @Test
    void aGzipPushIsStoredDecoded() throws Exception {
        byte[] plain = CSV.getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> response = post(FILES, ACME_KEY, "text/csv", gzip(plain), "Content-Encoding", "gzip");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(202);
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(plain));
        assertThat(JSON.readTree(response.body()).get("key").asString()).isEqualTo("ACME:" + sha);
        assertThat(DATA.resolve("raw").resolve("ACME").resolve(sha.substring(0, 2)).resolve(sha))
                .hasBinaryContent(plain);
    }

    @Test
    void aGzipItemBatchIsDecoded() throws Exception {
        byte[] batch = "{\"items\":[{\"source_id\":\"Z-1\",\"sku\":\"S\",\"quantity\":1,\"delivery_date\":\"2026-01-02\"}]}"
                .getBytes(StandardCharsets.UTF_8);
        HttpResponse<String> response = post("/api/v1/suppliers/ACME/items", ACME_KEY, "application/json", gzip(batch),
                "Content-Encoding", "gzip", "Idempotency-Key", UUID.randomUUID().toString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(JSON.readTree(response.body()).get("items").get(0).get("outcome").asString()).isEqualTo("ACCEPTED");
    }

    /** 2 MB of zeros compress to a few KB: the decoded size is what counts, and decoding stops past the limit. */
    @Test
    void aGzipBombIs413NamingTheLimit() throws Exception {
        byte[] bomb = gzip(new byte[2 * 1024 * 1024]);
        assertThat(bomb.length).isLessThan(10_000);
        assertProblem(post(FILES, ACME_KEY, "application/octet-stream", bomb, "Content-Encoding", "gzip"),
                413, "the decoded body is larger than the limit of 1048576 bytes (ingestor.http.max-file-size)");
        assertProblem(post("/api/v1/suppliers/ACME/items", ACME_KEY, "application/json", gzip(new byte[70_000]),
                "Content-Encoding", "gzip", "Idempotency-Key", "k-bomb"),
                413, "ingestor.http.max-json-size");
        assertThat(jobCount()).isZero();
    }

    /**
     * A gzip body may be several members one after the other (RFC 1952), and the next need not have arrived when
     * one ends: the whole body is stored, never its first member alone as if it were all.
     */
    @Test
    void aGzipBodyOfSeveralMembersIsStoredWholeWhenTheSecondArrivesLater() throws Exception {
        byte[] first = CSV.getBytes(StandardCharsets.UTF_8);
        byte[] second = "G-2,1,SKU-2,7,2026-12-02\n".getBytes(StandardCharsets.UTF_8);
        byte[] firstMember = gzip(first);
        byte[] secondMember = gzip(second);
        String answer;
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write(("POST " + FILES + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: " + ACME_KEY
                    + "\r\nContent-Type: text/csv\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n"
                    + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(chunk(firstMember));
            out.flush();
            Thread.sleep(1500);
            try {
                out.write(chunk(secondMember));
                out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                answer = "the server stopped reading the body after its first member: " + e;
            }
        }
        // what was stored, however the connection ended
        assertThat(jdbc.queryForList("SELECT key FROM import_job", String.class)).as(answer)
                .containsExactly("ACME:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(
                        (CSV + "G-2,1,SKU-2,7,2026-12-02\n").getBytes(StandardCharsets.UTF_8))));
        assertThat(answer).startsWith("HTTP/1.1 202");
        byte[] whole = (CSV + "G-2,1,SKU-2,7,2026-12-02\n").getBytes(StandardCharsets.UTF_8);
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(whole));
        assertThat(answer).contains("\"key\":\"ACME:" + sha + "\"", "\"size\":" + whole.length + ",");
    }

    /** Bytes after the last member that are not another member are a malformed body, not silently dropped. */
    @Test
    void bytesAfterTheLastGzipMemberAre400() throws Exception {
        byte[] member = gzip(CSV.getBytes(StandardCharsets.UTF_8));
        byte[] trailing = Arrays.copyOf(member, member.length + 9);
        System.arraycopy("G-2,1,SKU".getBytes(StandardCharsets.UTF_8), 0, trailing, member.length, 9);
        assertProblem(post(FILES, ACME_KEY, "text/csv", trailing, "Content-Encoding", "gzip"), 400, "not valid gzip");
        assertThat(jobCount()).isZero();
    }

    /**
     * Without a declared length the compressed bytes are bounded too: what a gzip header names (a file name, a
     * comment) and empty members decode to nothing, so a body of them alone would be read for as long as it is sent.
     */
    @Test
    void aChunkedGzipBodyOverTheLimitIs413EvenWhenItDecodesToLittle() throws Exception {
        byte[] member = gzip(CSV.getBytes(StandardCharsets.UTF_8));
        ByteArrayOutputStream named = new ByteArrayOutputStream();
        named.write(member, 0, 3);
        named.write(member[3] | 0x08); // FNAME: a zero-terminated name follows the header
        named.write(member, 4, 6);
        named.write("n".repeat(2_000_000).getBytes(StandardCharsets.UTF_8));
        named.write(0);
        named.write(member, 10, member.length - 10);
        ByteArrayOutputStream empties = new ByteArrayOutputStream();
        byte[] empty = gzip(new byte[0]);
        while (empties.size() < 2_000_000) {
            empties.write(empty);
        }
        empties.write(member);
        HttpResponse<String> response = http.send(postRequest(FILES, ACME_KEY, "text/csv",
                HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(empties.toByteArray())),
                "Content-Encoding", "gzip"), HttpResponse.BodyHandlers.ofString());
        assertProblem(response, 413,
                "the compressed body is larger than the limit of 1048576 bytes (ingestor.http.max-file-size)");
        // a name is kept in memory while it is read: its header is refused long before the limit (GzipBody.MAX_HEADER)
        response = http.send(postRequest(FILES, ACME_KEY, "text/csv",
                HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(named.toByteArray())),
                "Content-Encoding", "gzip"), HttpResponse.BodyHandlers.ofString());
        assertProblem(response, 400, "a gzip member's header (its file name, comment and extra field) is larger than "
                + GzipBody.MAX_HEADER + " bytes");
        assertThat(jobCount()).isZero();
    }

    @Test
    void malformedGzipIs400() throws Exception {
        byte[] notGzip = CSV.getBytes(StandardCharsets.UTF_8);
        assertProblem(post(FILES, ACME_KEY, "text/csv", notGzip, "Content-Encoding", "gzip"), 400, "not valid gzip");
        byte[] truncated = gzip(new byte[50_000]);
        truncated = Arrays.copyOf(truncated, truncated.length / 2);
        assertProblem(post(FILES, ACME_KEY, "text/csv", truncated, "Content-Encoding", "gzip"), 400, "not valid gzip");
        assertThat(jobCount()).isZero();
    }

    @Test
    void otherEncodingsAre415NamingTheEncoding() throws Exception {
        byte[] body = CSV.getBytes(StandardCharsets.UTF_8);
        for (String encoding : new String[] {"br", "compress", "x-unknown", "deflate", "gzip, gzip", "gzip, br"}) {
            assertProblem(post(FILES, ACME_KEY, "text/csv", body, "Content-Encoding", encoding),
                    415, "Content-Encoding '" + encoding + "' is not taken");
        }
        assertThat(jobCount()).isZero();
    }

    private static byte[] chunk(byte[] bytes) {
        byte[] size = (Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] chunk = Arrays.copyOf(size, size.length + bytes.length + 2);
        System.arraycopy(bytes, 0, chunk, size.length, bytes.length);
        chunk[chunk.length - 2] = '\r';
        chunk[chunk.length - 1] = '\n';
        return chunk;
    }

    private static byte[] gzip(byte[] plain) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(plain);
        }
        return out.toByteArray();
    }
}
