package dev.ingestor.web;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.zip.ZipException;

import dev.ingestor.config.IngestorProperties;
import dev.ingestor.logging.SafeText;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.catalina.connector.ClientAbortException;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.ObjectMapper;

/**
 * The size of every request body, enforced before Spring MVC or Camel reads a byte of it (Camel's HTTP
 * binding caches a whole body before the route runs, so a route alone could only refuse an oversized body
 * after taking all of it). The limit depends on the routed path ({@link BodyLimit}).
 *
 * <ul>
 *   <li>A declared Content-Length over the limit: 413 at once, nothing read.</li>
 *   <li>No declared length (chunked): the body is read ahead, at most one byte past the limit, and refused
 *       with 413 if it is longer; a body is never silently cut.</li>
 *   <li>{@code Content-Encoding: gzip}: decoded here, the limit applying to the decoded bytes (a small
 *       compressed body can decode to gigabytes), never more than limit + 1 of them, of every member
 *       ({@link GzipBody}), and to the compressed bytes read (a header's name or comment and empty members
 *       decode to nothing); malformed gzip, or bytes after its last member, is a 400. Any other encoding is a
 *       415 naming it.</li>
 *   <li>A body read ahead that stops arriving (nothing for {@code server.tomcat.connection-timeout}) is a 408,
 *       one that breaks off a 400, both answered by the error page ({@link ErrorPageProblems}).</li>
 *   <li>Multipart bodies are parsed by the servlet container, bounded by {@code spring.servlet.multipart.*}
 *       (set from {@code ingestor.http.max-file-size}); only file pushes take them, any other path
 *       answers 415, so a small limit cannot be passed around with a multipart body.</li>
 * </ul>
 * Runs after authentication (the security filter chain), so none of this is done for an anonymous caller.
 */
@Component
class RequestSizeLimitFilter extends OncePerRequestFilter implements Ordered {

    private final HttpSettings http;
    private final Path spoolDir;
    private final ProblemResponse problems;

    public RequestSizeLimitFilter(IngestorProperties properties, HttpSettings http, ObjectMapper json) {
        this.http = http;
        this.spoolDir = properties.getDataDir().resolve("spool");
        this.problems = new ProblemResponse(json);
    }

    @Override
    public int getOrder() { return FilterOrder.REQUEST_SIZE_LIMIT; }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        BodyLimit limit = BodyLimit.of(request, http);
        List<String> encodings = encodings(request);
        boolean gzip = encodings.size() == 1 && (encodings.get(0).equals("gzip") || encodings.get(0).equals("x-gzip"));
        boolean multipart = isMultipart(request);
        if (!encodings.isEmpty() && (!gzip || multipart)) {
            refuse(request, response, 415, "unsupported-encoding", "Unsupported Media Type", "Content-Encoding '"
                    + SafeText.of(String.join(", ", encodings), 80) + "' is not taken"
                    + (multipart ? " for a multipart body" : "")
                    + "; send the body as it is, or compressed with gzip alone");
            return;
        }
        if (multipart && !limit.filePush()) {
            refuse(request, response, 415, "unsupported-media-type", "Unsupported Media Type",
                    "multipart bodies are taken by file pushes only (POST /api/v1/suppliers/{supplier}/files)");
            return;
        }
        long declared = request.getContentLengthLong();
        // a form carries its file with boundaries and part headers around it; the file part is bounded by the container
        long envelope = multipart ? HttpSettings.MULTIPART_ENVELOPE.toBytes() : 0;
        if (declared > limit.bytes() + envelope) {
            refuse(request, response, 413, "too-large", "Content Too Large", "the body of " + declared
                    + " bytes is larger than the limit of " + limit.describe()
                    + (multipart ? " and " + envelope + " bytes for the form around the file" : ""));
            return;
        }
        boolean chunked = request.getHeader("Transfer-Encoding") != null;
        if (!gzip && (!chunked || multipart)) {
            // the container delivers no more than the declared length; multipart is bounded by the container
            chain.doFilter(request, response);
            return;
        }
        SpooledBody body;
        AtMost compressed = null;
        try {
            InputStream in = request.getInputStream();
            if (gzip) {
                // a gzip header's name or comment, and empty members, decode to nothing: the bytes sent are bounded too
                compressed = new AtMost(in, limit.bytes());
                in = new GzipBody(compressed);
            }
            body = SpooledBody.read(in, limit.bytes(), spoolDir);
        } catch (SpooledBody.TooLarge e) {
            String what = compressed == null
                    ? "the body"
                    : compressed.over() ? "the compressed body" : "the decoded body";
            refuse(request, response, 413, "too-large", "Content Too Large", what + " is larger than the limit of "
                    + limit.describe());
            return;
        } catch (ClientAbortException e) {
            // the body stopped arriving (nothing for server.tomcat.connection-timeout: 408) or broke off (400). Tomcat
            // has already given the answer that status, which its error page writes (ErrorPageProblems); nothing of
            // the body is kept, and the exception is the client's doing, not the server's
            if (!response.isCommitted()) {
                response.sendError(stoppedArriving(e) ? 408 : 400);
            }
            return;
        } catch (ZipException | EOFException e) {
            if (!gzip) {
                throw e;
            }
            refuse(request, response, 400, "malformed-gzip", "Bad Request",
                    "the body is not valid gzip (Content-Encoding: gzip): "
                            + SafeText.of(String.valueOf(e.getMessage()), 120));
            return;
        }
        try {
            chain.doFilter(new ReadAhead(request, body), response);
        } finally {
            AfterRequest.run(request, body::close);
        }
    }

    private static boolean stoppedArriving(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SocketTimeoutException) {
                return true;
            }
        }
        return false;
    }

    private static boolean isMultipart(HttpServletRequest request) {
        String type = request.getContentType();
        return type != null && type.trim().toLowerCase(Locale.ROOT).startsWith("multipart/");
    }

    /** The content codings named, in order, without {@code identity} (which means none). */
    private static List<String> encodings(HttpServletRequest request) {
        List<String> names = new ArrayList<>();
        Enumeration<String> headers = request.getHeaders("Content-Encoding");
        while (headers != null && headers.hasMoreElements()) {
            for (String token : headers.nextElement().split(",")) {
                String name = token.trim().toLowerCase(Locale.ROOT);
                if (!name.isEmpty() && !name.equals("identity")) {
                    names.add(name);
                }
            }
        }
        return names;
    }

    private void refuse(HttpServletRequest request, HttpServletResponse response, int status, String slug, String title,
            String detail) throws IOException {
        // the rest of the body is not wanted: ProblemResponse closes the connection so the client stops sending it
        problems.write(request, response, Problem.of(status, slug, title, detail), java.util.Map.of());
    }

    /** The request with its body as read ahead: decoded, of a known length, no Content-Encoding left. */
    private static final class ReadAhead extends HttpServletRequestWrapper {
        private final SpooledBody body;
        private ServletInputStream stream;

        ReadAhead(HttpServletRequest request, SpooledBody body) {
            super(request);
            this.body = body;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (stream == null) {
                stream = new Replay(body.open());
            }
            return stream;
        }

        @Override
        public java.io.BufferedReader getReader() throws IOException {
            String charset = getCharacterEncoding() == null ? "UTF-8" : getCharacterEncoding();
            return new java.io.BufferedReader(new java.io.InputStreamReader(getInputStream(), charset));
        }

        @Override
        public int getContentLength() { return body.size() > Integer.MAX_VALUE ? -1 : (int) body.size(); }

        @Override
        public long getContentLengthLong() { return body.size(); }

        @Override
        public String getHeader(String name) {
            if (hidden(name)) {
                return null;
            }
            if ("Content-Length".equalsIgnoreCase(name)) {
                return String.valueOf(body.size());
            }
            return super.getHeader(name);
        }

        @Override
        public Enumeration<String> getHeaders(String name) {
            if (hidden(name)) {
                return Collections.emptyEnumeration();
            }
            if ("Content-Length".equalsIgnoreCase(name)) {
                return Collections.enumeration(List.of(String.valueOf(body.size())));
            }
            return super.getHeaders(name);
        }

        @Override
        public Enumeration<String> getHeaderNames() {
            List<String> names = new ArrayList<>();
            for (Enumeration<String> all = super.getHeaderNames(); all.hasMoreElements();) {
                String name = all.nextElement();
                if (!hidden(name) && !"Content-Length".equalsIgnoreCase(name)) {
                    names.add(name);
                }
            }
            names.add("Content-Length");
            return Collections.enumeration(names);
        }

        private static boolean hidden(String name) {
            return "Content-Encoding".equalsIgnoreCase(name) || "Transfer-Encoding".equalsIgnoreCase(name);
        }
    }

    /** The bytes of a stream, refused with {@link SpooledBody.TooLarge} once more than {@code limit} are read. */
    private static final class AtMost extends java.io.FilterInputStream {
        private final long limit;
        private long read;

        AtMost(InputStream in, long limit) {
            super(in);
            this.limit = limit;
        }

        boolean over() {
            return read > limit;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            count(b < 0 ? -1 : 1);
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, (int) Math.min(len, limit + 1 - read));
            count(n);
            return n;
        }

        private void count(int n) throws SpooledBody.TooLarge {
            if (n > 0) {
                read += n;
                if (read > limit) {
                    throw new SpooledBody.TooLarge();
                }
            }
        }
    }

    private static final class Replay extends ServletInputStream {
        private final InputStream in;
        private boolean finished;

        Replay(InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            finished = b < 0;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            finished = n < 0;
            return n;
        }

        @Override
        public boolean isFinished() { return finished; }

        @Override
        public boolean isReady() { return true; }

        @Override
        public void setReadListener(ReadListener listener) {
            throw new IllegalStateException("the body was read ahead; asynchronous reading is not offered");
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
