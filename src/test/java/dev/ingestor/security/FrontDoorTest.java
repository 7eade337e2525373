package dev.ingestor.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ingestor.IngestorApplication;
import dev.ingestor.config.HttpLimits;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.TestPostgres;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.core.env.Environment;
import tools.jackson.databind.JsonNode;

/**
 * The HTTP front door against the running app: no valid key, no entry, on every route, method and spelling
 * of a path, before anything of the body is read; keys only in headers; the actuator for the admin key;
 * security headers on every answer; demo keys on loopback only.
 */
class FrontDoorTest extends IngestorTestSupport {

    private static final String JOB = "/api/v1/jobs/" + UUID.randomUUID();
    private static final String MULTIPART = "multipart/form-data; boundary=xyz";
    private static final byte[] MULTIPART_BODY = ("--xyz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n"
            + "Content-Type: text/csv\r\n\r\nsource_id,sku,quantity,delivery_date\r\nA-1,SKU,1,2026-12-01\r\n--xyz--\r\n")
            .getBytes(StandardCharsets.UTF_8);

    @Autowired
    HttpLimits limits;

    @Autowired
    Environment environment;

    /** One request of the API: method, path, content type (null: none) and body (null: none). */
    private record Call(String method, String path, String contentType, byte[] body) {
        static Call of(String method, String path) {
            return new Call(method, path, null, null);
        }
    }

    private static List<Call> everyRoute() {
        byte[] csv = "source_id,sku,quantity,delivery_date\nF-1,SKU,1,2026-12-01\n".getBytes(StandardCharsets.UTF_8);
        byte[] items = "{\"items\":[{\"source_id\":\"I-1\",\"sku\":\"S\",\"quantity\":1,\"delivery_date\":\"2026-12-01\"}]}"
                .getBytes(StandardCharsets.UTF_8);
        byte[] form = "api_key=acme-demo-key&file=x".getBytes(StandardCharsets.UTF_8);
        List<Call> calls = new ArrayList<>();
        for (String files : List.of("/api/v1/suppliers/ACME/files", "/api/v1/suppliers/ACME/files;x=1",
                "/api/v1/suppliers/ACME/%66iles", "/api/v1/suppliers/ACME/files/")) {
            calls.add(new Call("POST", files, "text/csv", csv));
            calls.add(new Call("POST", files, MULTIPART, MULTIPART_BODY));
            calls.add(new Call("POST", files, "application/x-www-form-urlencoded", form));
        }
        calls.add(new Call("POST", "/api/v1/suppliers/ACME/items", "application/json", items));
        calls.add(new Call("POST", "/api/v1/suppliers/ACME/items;x=1", "application/json", items));
        calls.add(new Call("POST", "/api/v1/suppliers/ACME/%69tems", "application/json", items));
        // the older path of item batches, still served
        calls.add(new Call("POST", "/api/v1/partners/ACME/items", "application/json", items));
        calls.add(new Call("POST", "/api/v1/partners/ACME/items;x=1", "application/json", items));
        calls.add(new Call("PUT", "/api/v1/jobs", "application/x-www-form-urlencoded", form));
        calls.add(new Call("PATCH", JOB, "application/x-www-form-urlencoded", form));
        calls.add(Call.of("GET", "/api/v1/jobs"));
        calls.add(Call.of("GET", JOB));
        calls.add(Call.of("GET", JOB + "/records?outcome=QUARANTINED"));
        for (String admin : List.of("/overview", "/jobs", "/jobs/" + UUID.randomUUID(), "/failed-jobs", "/dead-letters",
                "/idempotency-keys/ACME/k-1", "/idempotency-keys/ACME?key=k%2F1")) {
            calls.add(Call.of("GET", "/api/v1/admin" + admin));
        }
        calls.add(Call.of("DELETE", "/api/v1/admin/idempotency-keys/ACME/k-1"));
        calls.add(Call.of("DELETE", "/api/v1/admin/idempotency-keys/ACME?key=k%2F1"));
        calls.add(new Call("DELETE", "/api/v1/admin/idempotency-keys/ACME/k-1", "application/x-www-form-urlencoded",
                form));
        for (String admin : List.of("/jobs/" + UUID.randomUUID() + "/revalidate",
                "/jobs/" + UUID.randomUUID() + "/reprocess",
                "/dead-letters/1/replay", "/suppliers/ACME/retry-failed")) {
            calls.add(Call.of("POST", "/api/v1/admin" + admin));
            calls.add(new Call("POST", "/api/v1/admin" + admin, "application/x-www-form-urlencoded", form));
        }
        calls.add(Call.of("GET", "/api/v1/nothing-here"));
        calls.add(Call.of("GET", "/"));
        return calls;
    }

    private HttpResponse<String> send(Call call, String... headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(call.path()))
                .method(call.method(), call.body() == null
                        ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofByteArray(call.body()));
        if (call.contentType() != null) {
            request.header("Content-Type", call.contentType());
        }
        if (headers.length > 0) {
            request.headers(headers);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void everyRouteAndMethodWithoutAValidKeyIs401() throws Exception {
        for (Call call : everyRoute()) {
            String what = call.method() + " " + call.path() + " " + call.contentType();
            HttpResponse<String> none = send(call);
            assertProblem(none, 401, "needs a key");
            assertThat(none.headers().firstValue("WWW-Authenticate")).as(what).hasValue("Bearer realm=\"ingestor\"");
            assertProblem(send(call, "X-Api-Key", "not-a-key"), 401, "not valid");
            assertProblem(send(call, "Authorization", "Bearer not-a-key"), 401, "not valid");
            // a client header cannot stand in for the caller the key establishes
            assertProblem(send(call, "IngestorCaller", "admin", "dev.ingestor.web.Caller", "admin"), 401,
                    "needs a key");
        }
        assertThat(jobCount()).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM http_request", Long.class)).isZero();
    }

    @Test
    void aKeyInTheQueryStringOrAFormFieldIsNeverTaken() throws Exception {
        for (String param : List.of("api_key", "apiKey", "key", "access_token", "X-Api-Key")) {
            assertProblem(get("/api/v1/jobs?" + param + "=" + ACME_KEY, null), 401, "needs a key");
            assertProblem(get("/api/v1/admin/overview?" + param + "=" + ADMIN_KEY, null), 401, "needs a key");
        }
        byte[] form = ("api_key=" + ACME_KEY + "&X-Api-Key=" + ACME_KEY).getBytes(StandardCharsets.UTF_8);
        assertProblem(post("/api/v1/suppliers/ACME/files", null, "application/x-www-form-urlencoded", form), 401,
                "needs a key");
        // the same request with the key in a header is let in (and then refused for its content type, not its key)
        HttpResponse<String> withKey = post("/api/v1/suppliers/ACME/files", ACME_KEY,
                "application/x-www-form-urlencoded", form);
        assertThat(withKey.statusCode()).isNotEqualTo(401).isNotEqualTo(429);
    }

    @Test
    void aLargeUnauthenticatedBodyIsAnsweredWithoutBeingRead() throws Exception {
        String gigabyte = "Content-Length: 1073741824";
        for (String head : List.of(
                "POST /api/v1/suppliers/ACME/files HTTP/1.1\r\nHost: x\r\nContent-Type: text/csv\r\n" + gigabyte,
                "POST /api/v1/suppliers/ACME/files HTTP/1.1\r\nHost: x\r\nContent-Type: " + MULTIPART + "\r\n"
                        + gigabyte,
                "POST /api/v1/suppliers/ACME/files HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                        + gigabyte,
                "PUT /api/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                        + gigabyte,
                "POST /api/v1/suppliers/ACME/items HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + gigabyte,
                "POST /api/v1/admin/suppliers/ACME/retry-failed HTTP/1.1\r\nHost: x\r\nX-Api-Key: wrong\r\n"
                        + "Content-Type: application/x-www-form-urlencoded\r\n" + gigabyte,
                "POST /api/v1/suppliers/ACME/files HTTP/1.1\r\nHost: x\r\nContent-Type: text/csv\r\nTransfer-Encoding: chunked")) {
            long start = System.nanoTime();
            String answer;
            // only the first bytes of the body are ever sent: an answer that needed the body would never come
            try (RawHttp raw = new RawHttp(null, port, Duration.ofSeconds(10))) {
                answer = raw.send(head,
                        head.contains("chunked")
                                ? "10\r\nsource_id,sku,qu\r\n".getBytes(StandardCharsets.US_ASCII)
                                : "a=b&c=d&e=f&g=h".getBytes(StandardCharsets.US_ASCII))
                        .readAnswer();
            }
            assertThat(answer).as(head).startsWith("HTTP/1.1 401").contains("application/problem+json")
                    .containsIgnoringCase("Connection: close").contains("\"status\":401");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as(head).isLessThan(Duration.ofSeconds(5));
        }
        assertThat(jobCount()).isZero();
    }

    @Test
    void aBodyLeftUnreadByARefusalOrAnAnonymousAnswerIsNotWaitedForAfterTheAnswer() throws Exception {
        String megabyte = "Content-Length: 1000000";
        Map<String, String> answers = new LinkedHashMap<>();
        answers.put("POST /api/v1/suppliers/ACME/files HTTP/1.1\r\nHost: x\r\nContent-Type: text/csv\r\n" + megabyte,
                "HTTP/1.1 401");
        answers.put(
                "POST /api/v1/suppliers/ACME/files HTTP/1.1\r\nHost: x\r\nX-Api-Key: wrong\r\nContent-Type: text/csv\r\n"
                        + megabyte,
                "HTTP/1.1 401");
        answers.put("POST /api/v1/suppliers/ACME/files HTTP/1.1\r\nHost: x\r\nContent-Type: text/csv\r\n"
                + "Transfer-Encoding: chunked", "HTTP/1.1 401");
        answers.put(
                "POST /api/v1/admin/suppliers/ACME/retry-failed HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: " + ACME_KEY
                        + "\r\nContent-Type: text/csv\r\n" + megabyte,
                "HTTP/1.1 403");
        // a refusal after the key, before the body: an encoding not taken
        answers.put("POST /api/v1/suppliers/ACME/files HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: " + ACME_KEY
                + "\r\nContent-Type: text/csv\r\nContent-Encoding: br\r\n" + megabyte, "HTTP/1.1 415");
        // public answers read no body either (one over ingestor.http.max-body-size would be a 413, which Tomcat
        // closes by itself): an anonymous body is never drained
        String underTheLimit = "Content-Length: 60000";
        answers.put("GET /actuator/health HTTP/1.1\r\nHost: x\r\n" + underTheLimit, "HTTP/1.1 200");
        answers.put("GET /admin/index.html HTTP/1.1\r\nHost: x\r\n" + underTheLimit, "HTTP/1.1 200");
        for (Map.Entry<String, String> call : answers.entrySet()) {
            String head = call.getKey();
            // well below server.tomcat.connection-timeout (20 s), which a read of the rest of the body would wait for
            try (RawHttp raw = new RawHttp(null, port, Duration.ofSeconds(4))) {
                String answer = raw.send(head, head.contains("chunked")
                        ? "10\r\nsource_id,sku,qu\r\n".getBytes(StandardCharsets.US_ASCII)
                        : "source_id,sku,qu".getBytes(StandardCharsets.US_ASCII)).readAnswer();
                assertThat(answer).as(head).startsWith(call.getValue()).containsIgnoringCase("Connection: close");
                // this side keeps the connection open and sends nothing more: the server closes it, its thread free
                assertThat(raw.closedByServer()).as(head).isTrue();
            }
        }
    }

    @Test
    void aBodyAnAnswerLeftUnreadIsDrainedNoFurtherThanTheSwallowLimit() throws Exception {
        // Spring MVC refuses the content type without reading the body; more of it is left than
        // server.tomcat.max-swallow-size (64 KB), so Tomcat closes the connection instead of reading the rest. With
        // Tomcat's 2 MB it read the 100 KB sent and waited for the other 400 KB, up to connection-timeout per read
        byte[] hundredKilobytes = new byte[100_000];
        try (RawHttp raw = new RawHttp(null, port, Duration.ofSeconds(4))) {
            String answer = raw.send("POST /api/v1/suppliers/ACME/files HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: "
                    + ACME_KEY + "\r\nContent-Type: image/png\r\nContent-Length: 500000", hundredKilobytes)
                    .readAnswer();
            assertThat(answer).startsWith("HTTP/1.1 415").containsIgnoringCase("Connection: close");
            assertThat(raw.closedByServer()).isTrue();
        }
    }

    @Test
    void anonymousCallersSeeTheHealthStatusOnlyAndTheRestOfTheActuatorNeedsTheAdminKey() throws Exception {
        HttpResponse<String> anonymous = get("/actuator/health", null);
        assertThat(anonymous.statusCode()).isEqualTo(200);
        // the status, and the names of Kubernetes' probe groups (Spring Boot 4 has them on by default)
        assertThat(JSON.readTree(anonymous.body()).propertyNames().iterator()).toIterable().containsExactly("groups",
                "status");
        assertThat(JSON.readTree(anonymous.body()).path("groups").values()).extracting(JsonNode::asString)
                .containsExactly("liveness", "readiness");
        for (String probe : List.of("/actuator/health/liveness", "/actuator/health/readiness")) {
            HttpResponse<String> answer = get(probe, null);
            assertThat(answer.statusCode()).as(probe).isEqualTo(200);
            assertThat(JSON.readTree(answer.body()).propertyNames().iterator()).toIterable().as(probe)
                    .containsExactly("status");
        }
        HttpResponse<String> admin = get("/actuator/health", ADMIN_KEY);
        assertThat(JSON.readTree(admin.body()).path("components").path("db").path("details").isMissingNode()).isFalse();
        assertThat(JSON.readTree(get("/actuator/health", ACME_KEY).body()).has("components")).isFalse();
        for (String endpoint : List.of("/actuator/prometheus", "/actuator/metrics", "/actuator/camelroutes",
                "/actuator/info",
                "/actuator", "/actuator/health/../prometheus", "/actuator/%70rometheus", "/actuator/prometheus;x=1")) {
            HttpResponse<String> none = get(endpoint, null);
            assertThat(none.statusCode()).as(endpoint).isIn(400, 401);
            assertThat(none.body()).as(endpoint).doesNotContain("ingestor_").doesNotContain("jvm_");
        }
        for (String endpoint : List.of("/actuator/prometheus", "/actuator/metrics", "/actuator/camelroutes",
                "/actuator/info", "/actuator")) {
            assertProblem(get(endpoint, null), 401, "needs a key");
            assertProblem(get(endpoint, "wrong"), 401, "not valid");
            assertProblem(get(endpoint, ACME_KEY), 403, "admin key");
            assertThat(get(endpoint, ADMIN_KEY).statusCode()).as(endpoint).isEqualTo(200);
        }
        assertThat(get("/actuator/prometheus", ADMIN_KEY).body()).contains("jvm_memory_used_bytes");
    }

    @Test
    void theAdminPageAndTheOpenApiDocumentArePublicAndHoldNoData() throws Exception {
        assertThat(get("/admin", null).statusCode()).isEqualTo(302);
        for (String file : List.of("/admin/index.html", "/admin/admin.js", "/admin/admin.css",
                "/api/v1/openapi.json")) {
            assertThat(get(file, null).statusCode()).as(file).isEqualTo(200);
        }
        assertProblem(get("/admin/nothing/deeper", null), 401, "needs a key");
    }

    @Test
    void oneKeyStallingAsManyUploadsAsItMayDoesNotHoldBackAnotherKey() throws Exception {
        int perKey = limits.getMaxConcurrentPerKey();
        assertThat(perKey).as("the shipped default, which the benchmark's 32 concurrent pushes need")
                .isGreaterThanOrEqualTo(32);
        List<RawHttp> held = new ArrayList<>();
        try {
            // uploads whose bodies stop after a few bytes: each holds a request thread while its route reads
            for (int i = 0; i < perKey; i++) {
                held.add(new RawHttp(null, port, Duration.ofSeconds(60)).send(
                        "POST /api/v1/suppliers/ACME/files HTTP/1.1\r\nHost: localhost\r\n"
                                + "X-Api-Key: " + ACME_KEY + "\r\nContent-Type: text/csv\r\nContent-Length: 100",
                        "source_id".getBytes()));
            }
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertProblem(get("/api/v1/jobs", ACME_KEY), 429,
                    "ingestor.http.limits.max-concurrent-per-key"));
            // every place of ACME is taken and stalled, yet another key is served at once
            await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(() -> assertThat(get("/api/v1/jobs", GLOBEX_KEY).statusCode()).isEqualTo(200));
        } finally {
            for (RawHttp raw : held) {
                raw.close();
            }
        }
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> get("/api/v1/jobs", ACME_KEY).statusCode() == 200);
    }

    @Test
    void pathsTomcatRefusesAreAnsweredProblemJsonWithoutServerDetails() throws Exception {
        for (String path : List.of("/admin/..%2fapi/v1/jobs", "/api/v1/jobs%00", "/api/v1/%2e%2e/jobs%00")) {
            try (RawHttp raw = new RawHttp(null, port, Duration.ofSeconds(10))) {
                String answer = raw.send(
                        "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: " + ACME_KEY
                                + "\r\nConnection: close",
                        new byte[0]).readAnswer();
                assertThat(answer).as(path).startsWith("HTTP/1.1 400")
                        .contains("Content-Type: application/problem+json")
                        .contains("\"status\":400").doesNotContainIgnoringCase("tomcat")
                        .doesNotContainIgnoringCase("<html")
                        .doesNotContain("Exception").doesNotContain("Server:");
            }
        }
    }

    @Test
    void theContainersErrorPageIsAProblemWithoutServerDetails() throws Exception {
        // TRACE is refused by the container, which answers through its error page (/error)
        for (String key : List.of("", "X-Api-Key: " + ACME_KEY + "\r\n")) {
            String answer;
            try (RawHttp raw = new RawHttp(null, port, Duration.ofSeconds(10))) {
                answer = raw.send("TRACE /api/v1/jobs HTTP/1.1\r\nHost: localhost\r\n" + key
                        + "Accept: text/html\r\nConnection: close", new byte[0]).readAnswer();
            }
            assertThat(answer).as(key).startsWith("HTTP/1.1 405").contains("Allow: ")
                    .contains("Content-Type: application/problem+json").contains("\"status\":405")
                    .contains("urn:ingestor:problem:method-not-allowed")
                    .doesNotContainIgnoringCase("<html").doesNotContainIgnoringCase("whitelabel")
                    .doesNotContainIgnoringCase("spring").doesNotContain("\"timestamp\"");
        }
        // the error page asked for directly is a path like any other without a route
        assertProblem(get("/error", ACME_KEY), 404, "there is nothing at this path");
        assertThat(get("/error", ACME_KEY).body()).doesNotContain("999").doesNotContain("\"timestamp\"");
        assertProblem(get("/error", null), 401, "needs a key");
    }

    @Test
    void aQueryStringNotInUtf8OrAFormBodyIsAnsweredProblemJsonNamingIt() throws Exception {
        String form = "application/x-www-form-urlencoded";
        String notUtf8 = "not percent-encoded UTF-8";
        String many = "a" + "&a".repeat(1000);
        Map<Call, String> calls = new LinkedHashMap<>();
        for (String path : List.of("/api/v1/jobs?q=%FF", "/api/v1/admin/jobs?q=%C3%28", "/api/v1/jobs?q=%G1",
                "/actuator/health?x=%FF", "/admin/index.html?x=%FF", "/api/v1/nothing-here?%FF", "/api/v1/jobs?q=%")) {
            calls.put(Call.of("GET", path), notUtf8);
        }
        calls.put(Call.of("GET", "/api/v1/jobs?=1"), "has no name");
        calls.put(Call.of("GET", "/api/v1/jobs?q=a&=2"), "has no name");
        calls.put(Call.of("GET", "/api/v1/jobs?" + many), "more than 1000 parameters");
        calls.put(new Call("POST", "/api/v1/suppliers/ACME/files?x=%E2%82", "text/csv", new byte[0]), notUtf8);
        calls.put(new Call("POST", "/api/v1/suppliers/ACME/files", form, "a=%FF".getBytes(StandardCharsets.US_ASCII)),
                form);
        calls.put(new Call("POST", "/api/v1/suppliers/ACME/items", form, "a=1".getBytes(StandardCharsets.US_ASCII)),
                form);
        for (Call call : calls.keySet()) {
            boolean admin = call.path().contains("/admin") || call.path().startsWith("/actuator");
            String head = call.method() + " " + call.path() + " HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: "
                    + (admin ? ADMIN_KEY : ACME_KEY) + "\r\nAccept: */*\r\nConnection: close"
                    + (call.body() == null
                            ? ""
                            : "\r\nContent-Type: " + call.contentType() + "\r\nContent-Length: "
                                    + call.body().length);
            try (RawHttp raw = new RawHttp(null, port, Duration.ofSeconds(10))) {
                String answer = raw.send(head, call.body() == null ? new byte[0] : call.body()).readAnswer();
                String what = call.method() + " " + call.path() + (call.body() == null ? "" : " " + call.contentType());
                assertThat(answer).as(what).containsPattern("^HTTP/1.1 (400|415)")
                        .contains("Content-Type: application/problem+json")
                        .contains(calls.get(call))
                        .doesNotContainIgnoringCase("tomcat").doesNotContainIgnoringCase("<html")
                        .doesNotContain("Exception");
            }
        }
        assertThat(get("/api/v1/jobs?q=%C3%A9t%C3%A9+%E2%82%AC", ACME_KEY).statusCode()).isEqualTo(200);
        assertThat(get("/api/v1/jobs?q=%FF", null).statusCode()).isEqualTo(401);
    }

    @Test
    void theAdminPageAnswersHeadLikeGetWithoutAKey() throws Exception {
        assertThat(head("/admin").statusCode()).isEqualTo(302);
        for (String file : List.of("/admin/index.html", "/admin/admin.js", "/admin/admin.css")) {
            assertThat(head(file).statusCode()).as(file).isEqualTo(200);
        }
        assertThat(head("/api/v1/openapi.json").statusCode()).as("/api/v1/openapi.json").isNotEqualTo(401);
        assertThat(head("/admin/nothing/deeper").statusCode()).isEqualTo(401);
        assertThat(head("/api/v1/jobs").statusCode()).isEqualTo(401);
    }

    private HttpResponse<Void> head(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.discarding());
    }

    @Test
    void everyAnswerCarriesTheSecurityHeaders() throws Exception {
        List<HttpResponse<String>> answers = List.of(
                get("/admin", null), get("/admin/index.html", null), get("/admin/admin.js", null),
                get("/api/v1/jobs", ACME_KEY), get("/api/v1/jobs", null), get("/api/v1/admin/overview", ACME_KEY),
                get("/actuator/health", null), get("/api/v1/nothing-here", ACME_KEY),
                post("/api/v1/suppliers/ACME/files", ACME_KEY, "text/csv",
                        "source_id\nH-1\n".getBytes(StandardCharsets.UTF_8)));
        for (HttpResponse<String> answer : answers) {
            String what = answer.request().method() + " " + answer.uri() + " " + answer.statusCode();
            var headers = answer.headers();
            assertThat(headers.firstValue("Content-Security-Policy")).as(what)
                    .hasValue(
                            "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'");
            assertThat(headers.firstValue("X-Frame-Options")).as(what).hasValue("DENY");
            assertThat(headers.firstValue("X-Content-Type-Options")).as(what).hasValue("nosniff");
            assertThat(headers.firstValue("Cache-Control")).as(what)
                    .hasValueSatisfying(v -> assertThat(v).contains("no-store"));
            assertThat(headers.firstValue("Referrer-Policy")).as(what).hasValue("no-referrer");
            assertThat(headers.allValues("Set-Cookie")).as(what).isEmpty();
        }
        String page = get("/admin/index.html", null).body();
        // the policy forbids inline code: the page keeps its script and style in files
        assertThat(page).doesNotContain("<style").doesNotContain(" style=").doesNotContain("onclick")
                .containsPattern("<script src=\"admin.js\"></script>");
        assertThat(page.replace("<script src=\"admin.js\"></script>", "")).doesNotContain("<script");
    }

    @Test
    void aSupplierKeyDoesNotBecomeAdminThroughHeaders() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(uri("/api/v1/admin/overview")).GET()
                .header("X-Api-Key", ACME_KEY).header("IngestorCaller", "admin")
                .header("dev.ingestor.web.Caller", "admin").build();
        assertProblem(http.send(request, HttpResponse.BodyHandlers.ofString()), 403, "admin key");
        assertThat(get("/api/v1/admin/overview", ADMIN_KEY).statusCode()).isEqualTo(200);
    }

    @Test
    void theFrontDoorRefusesTheAdminPathsToASupplierKeyKnownPathsOrNot() throws Exception {
        // the front door's own 403 (a route's refusal says "the admin API needs the admin key"), for paths that
        // have a route and for one that has none, which a supplier's key must not tell apart
        for (String path : List.of("/api/v1/admin/overview", "/api/v1/admin/failed-jobs", "/api/v1/admin/no-such-thing",
                "/api/v1/admin")) {
            assertProblem(get(path, ACME_KEY), 403, "this endpoint needs the admin key");
            assertProblem(get(path, null), 401, "needs a key");
        }
        HttpRequest action = HttpRequest.newBuilder(uri("/api/v1/admin/suppliers/ACME/retry-failed"))
                .header("X-Api-Key", ACME_KEY).POST(HttpRequest.BodyPublishers.noBody()).build();
        assertProblem(http.send(action, HttpResponse.BodyHandlers.ofString()), 403,
                "this endpoint needs the admin key");
        assertThat(get("/api/v1/admin/no-such-thing", ADMIN_KEY).statusCode()).isEqualTo(404);
    }

    @Test
    void withTheDemoKeysTheAppListensOnLoopbackOnly() {
        assertThat(environment.getProperty("server.address")).isEqualTo("127.0.0.1");
    }

    /** A GET over a plain socket with exactly these headers (HttpClient will not send another Host). */
    private String rawGet(String path, String... headers) throws Exception {
        try (RawHttp raw = new RawHttp(null, port, Duration.ofSeconds(10))) {
            return raw.send("GET " + path + " HTTP/1.1\r\n" + String.join("\r\n", headers) + "\r\nConnection: close",
                    new byte[0]).readAnswer();
        }
    }

    @Test
    void aDemoKeyAnswersOnlyRequestsMadeDirectlyToALoopbackName() throws Exception {
        // DNS rebinding (a page's name resolved to 127.0.0.1) or a proxy on this host: Host is not a loopback name
        for (String host : List.of("rebind.example", "rebind.example:" + port, "localhost.rebind.example",
                "127.0.0.1.nip.io",
                "192.0.2.7:" + port, "[2001:db8::1]:" + port)) {
            String answer = rawGet("/api/v1/admin/overview", "Host: " + host, "X-Api-Key: " + ADMIN_KEY);
            assertThat(answer).as(host).startsWith("HTTP/1.1 403").contains("application/problem+json")
                    .contains("urn:ingestor:problem:demo-key-loopback-only").contains("its Host is not localhost")
                    .contains("ingestor.admin.api-key-sha256").doesNotContain("\"jobs\"");
        }
        assertThat(rawGet("/api/v1/jobs", "Host: rebind.example", "Authorization: Bearer " + ACME_KEY))
                .startsWith("HTTP/1.1 403").contains("ingestor.suppliers.ACME.api-key-sha256");
        // a proxy on this host that keeps a loopback Host still says so in the headers it adds
        for (String forwarded : List.of("X-Forwarded-For: 203.0.113.9", "Forwarded: for=203.0.113.9",
                "X-Real-IP: 203.0.113.9",
                "X-Forwarded-Host: api.example.com", "X-Forwarded-Proto: https", "Via: 1.1 proxy")) {
            String header = forwarded.substring(0, forwarded.indexOf(':'));
            assertThat(rawGet("/api/v1/jobs", "Host: localhost:" + port, forwarded, "X-Api-Key: " + ACME_KEY))
                    .as(forwarded)
                    .startsWith("HTTP/1.1 403").contains("the forwarding header " + header);
        }
        // made on this machine to a loopback name, with or without a port, in any case
        for (String host : List.of("localhost", "LocalHost:" + port, "127.0.0.1:" + port, "127.0.0.1", "[::1]:" + port,
                "[::1]")) {
            assertThat(rawGet("/api/v1/admin/overview", "Host: " + host, "X-Api-Key: " + ADMIN_KEY)).as(host)
                    .startsWith("HTTP/1.1 200");
        }
        // the rule is for demo keys: anonymous probes keep the health status, and a wrong key is still a 401
        assertThat(rawGet("/actuator/health", "Host: rebind.example")).startsWith("HTTP/1.1 200").contains("\"status\"")
                .doesNotContain("components");
        assertThat(rawGet("/api/v1/jobs", "Host: rebind.example", "X-Api-Key: not-a-key")).startsWith("HTTP/1.1 401");
        // and an operator's own secret (here Prometheus' token) keeps working behind a proxy
        assertThat(rawGet("/actuator/prometheus", "Host: metrics.example.com", "X-Forwarded-For: 203.0.113.9",
                "Authorization: Bearer " + METRICS_TOKEN)).startsWith("HTTP/1.1 200").contains("jvm_memory_used_bytes");
    }

    @Test
    void aDemoKeyOnANonLoopbackAddressRefusesToStart() {
        for (List<String> address : List.of(List.of("--server.address=0.0.0.0"),
                List.of("--management.server.port=0", "--management.server.address=0.0.0.0"))) {
            List<String> args = new ArrayList<>(
                    List.of("--server.port=0", "--spring.datasource.url=" + TestPostgres.jdbcUrl("ingestor"),
                            "--ingestor.data-dir=" + WORK.resolve("refused"),
                            "--ingestor.inbox-dir=" + WORK.resolve("refused-inbox")));
            args.addAll(address);
            String property = address.get(address.size() - 1).substring(2,
                    address.get(address.size() - 1).indexOf('='));
            assertThatThrownBy(() -> new SpringApplicationBuilder(IngestorApplication.class)
                    .run(args.toArray(String[]::new)).close())
                    .hasMessageContaining(property + "=0.0.0.0 is not a loopback address")
                    .hasMessageContaining("ingestor.admin.api-key-sha256")
                    .hasMessageContaining("ingestor.suppliers.ACME.api-key-sha256");
        }
    }
}
