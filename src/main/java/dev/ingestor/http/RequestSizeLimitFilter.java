package dev.ingestor.http;

import java.io.IOException;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ingestor.api.Problem;
import dev.ingestor.config.IngestorProperties;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Size limits of the push endpoints, enforced before Camel reads a byte: Camel's HTTP binding caches the
 * whole body (spooled to disk past a threshold) before the route runs, so a route alone could only refuse an
 * oversized body after taking all of it. A declared Content-Length over the limit is answered 413 at once;
 * a body without one (chunked) is cut one byte past the limit, and intake refuses it as too large.
 * Multipart bodies are bounded by Spring's own multipart limits (set from the same properties).
 */
@Component
public class RequestSizeLimitFilter extends OncePerRequestFilter {

    private static final Pattern FILES = Pattern.compile("/api/v1/suppliers/[^/]+/files/?");
    private static final Pattern ITEMS = Pattern.compile("/api/v1/partners/[^/]+/items/?");

    private final long maxFileSize;
    private final long maxJsonSize;
    private final ObjectMapper json;

    public RequestSizeLimitFilter(IngestorProperties properties, ObjectMapper json) {
        this.maxFileSize = properties.getHttp().getMaxFileSize().toBytes();
        this.maxJsonSize = properties.getHttp().getMaxJsonSize().toBytes();
        this.json = json;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !"POST".equals(request.getMethod());
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String path = request.getRequestURI().substring(request.getContextPath().length());
        long limit;
        String property;
        if (FILES.matcher(path).matches()) {
            limit = maxFileSize;
            property = "ingestor.http.max-file-size";
        } else if (ITEMS.matcher(path).matches()) {
            limit = maxJsonSize;
            property = "ingestor.http.max-json-size";
        } else {
            chain.doFilter(request, response);
            return;
        }
        long declared = request.getContentLengthLong();
        if (declared > limit) {
            Problem problem = Problem.of(413, "too-large", "Content Too Large", "the body of " + declared
                    + " bytes is larger than the limit of " + limit + " bytes (" + property + ")");
            response.setStatus(413);
            response.setContentType(Problem.MEDIA_TYPE);
            // the rest of the body is not wanted; closing lets the client stop sending it
            response.setHeader("Connection", "close");
            json.writeValue(response.getOutputStream(), problem);
            return;
        }
        String contentType = request.getContentType();
        if (declared < 0 && (contentType == null || !contentType.toLowerCase(java.util.Locale.ROOT).startsWith("multipart/"))) {
            chain.doFilter(new Bounded(request, limit + 1), response);
        } else {
            chain.doFilter(request, response);
        }
    }

    /** A request whose body ends after {@code max} bytes, however much the client sends. */
    private static final class Bounded extends HttpServletRequestWrapper {
        private final long max;
        private ServletInputStream stream;

        Bounded(HttpServletRequest request, long max) {
            super(request);
            this.max = max;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (stream == null) {
                stream = new BoundedStream(super.getInputStream(), max);
            }
            return stream;
        }
    }

    private static final class BoundedStream extends ServletInputStream {
        private final ServletInputStream in;
        private long left;

        BoundedStream(ServletInputStream in, long max) {
            this.in = in;
            this.left = max;
        }

        @Override
        public int read() throws IOException {
            if (left <= 0) {
                return -1;
            }
            int b = in.read();
            if (b >= 0) {
                left--;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left <= 0) {
                return -1;
            }
            int n = in.read(b, off, (int) Math.min(len, left));
            if (n > 0) {
                left -= n;
            }
            return n;
        }

        @Override
        public boolean isFinished() {
            return left <= 0 || in.isFinished();
        }

        @Override
        public boolean isReady() {
            return in.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            in.setReadListener(listener);
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}
