package dev.ingestor.web;

import java.util.regex.Pattern;

import jakarta.servlet.http.HttpServletRequest;

/**
 * The largest body a request may carry, and the property that sets it: file pushes, item batches, sample files
 * for the admin preview, and a small general limit for everything else (admin actions, job queries, unknown paths).
 *
 * <p>The path is the one the servlet container routes on: decoded, normalized, without path parameters
 * ({@code ;x=1}), so {@code /files;x=1}, {@code /%66iles} and {@code //files} are the file push too. A path
 * spelled in a way not recognised here gets the general limit, the smallest one, never a larger one.
 */
record BodyLimit(long bytes, String property, boolean filePush) {

    private static final Pattern FILES = Pattern.compile("/api/v1/suppliers/[^/]+/files/?");
    private static final Pattern ITEMS = Pattern.compile("/api/v1/(suppliers|partners)/[^/]+/items/?");
    private static final Pattern PREVIEW = Pattern.compile("/api/v1/admin/suppliers/[^/]+/preview/?");
    private static final Pattern SLASHES = Pattern.compile("/{2,}");

    static BodyLimit of(HttpServletRequest request, HttpSettings http) {
        String path = routedPath(request);
        if ("POST".equals(request.getMethod())) {
            if (FILES.matcher(path).matches()) {
                return new BodyLimit(http.getMaxFileSize().toBytes(), "ingestor.http.max-file-size", true);
            }
            if (ITEMS.matcher(path).matches()) {
                return new BodyLimit(http.getMaxJsonSize().toBytes(), "ingestor.http.max-json-size", false);
            }
            if (PREVIEW.matcher(path).matches()) {
                return new BodyLimit(http.getMaxPreviewSize().toBytes(), "ingestor.http.max-preview-size", false);
            }
        }
        return new BodyLimit(http.getMaxBodySize().toBytes(), "ingestor.http.max-body-size", false);
    }

    /** Servlet path and path info: what Tomcat and Spring MVC route on, never the raw request URI. */
    static String routedPath(HttpServletRequest request) {
        String servletPath = request.getServletPath() == null ? "" : request.getServletPath();
        String pathInfo = request.getPathInfo() == null ? "" : request.getPathInfo();
        return SLASHES.matcher(servletPath + pathInfo).replaceAll("/");
    }

    String describe() {
        return bytes + " bytes (" + property + ")";
    }
}
