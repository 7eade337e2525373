package dev.ingestor.source.http;

/** This request's hold on its (supplier, Idempotency-Key) row: only the owner may complete or release it. */
record RequestClaim(String supplier, String idempotencyKey, String owner) {

    public static final String PROPERTY = "IngestorRequestClaim";
}
