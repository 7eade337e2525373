package dev.ingestor.web;

/** An RFC 9457 problem detail; {@code type} names the kind of problem, {@code detail} this occurrence. */
public record Problem(String type, String title, int status, String detail) {

    public static final String MEDIA_TYPE = "application/problem+json";
    private static final String TYPE_PREFIX = "urn:ingestor:problem:";

    public static Problem of(int status, String slug, String title, String detail) {
        return new Problem(TYPE_PREFIX + slug, title, status, detail);
    }

    public static Problem notFound(String detail) {
        return of(404, "not-found", "Not Found", detail);
    }

    public static Problem badRequest(String slug, String detail) {
        return of(400, slug, "Bad Request", detail);
    }
}
