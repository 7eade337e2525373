package dev.ingestor.source;

/** This request's hold on its (supplier, Idempotency-Key) row: only the owner may complete or release it. */
public record RequestClaim(String supplier, String idempotencyKey, String owner) {

    public static final String PROPERTY = "IngestorRequestClaim";
}
