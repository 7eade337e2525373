package dev.ingestor.web;

import io.swagger.v3.oas.annotations.media.Schema;

/** An RFC 9457 problem detail; {@code type} names the kind of problem, {@code detail} this occurrence. */
@Schema(name = "Problem", description = "RFC 9457 problem details, sent as application/problem+json")
public record Problem(
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, description = "The kind of problem", example = "urn:ingestor:problem:not-found") String type,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, example = "Not Found") String title,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, description = "The HTTP status", example = "404") int status,
        @Schema(requiredMode = Schema.RequiredMode.REQUIRED, description = "What was wrong in this request", example = "no job with id 7d0c1a52-3f4e-4b8a-9a51-0f6f2d1c9e11")
        String detail) {

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
