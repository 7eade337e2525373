package dev.ingestor.web;

/**
 * Who is calling, as established by an API key: one supplier (whoever pushes over HTTP is a supplier, one
 * namespace) or an operator with the admin key, who reaches every supplier.
 */
public record Caller(String supplier, boolean admin, String keyId) {

    public static final String PROPERTY = "IngestorCaller";
    /** The request attribute the front door sets after checking the key (attributes are server-side only). */
    public static final String REQUEST_ATTRIBUTE = "dev.ingestor.web.Caller";

    public static Caller operator() {
        return new Caller(null, true, null);
    }

    public static Caller supplier(String code) {
        return new Caller(code, false, null);
    }

    /** The same caller, known by the first 8 hex digits of its key's hash (for audit lines; not the key). */
    public Caller withKeyId(String sha256Hex) {
        return new Caller(supplier, admin, sha256Hex.substring(0, 8));
    }

    public boolean mayActFor(String code) {
        return admin || (supplier != null && supplier.equals(code));
    }

    /** Who submitted a job, as the job keeps it: {@code admin} or {@code supplier:<CODE>}; nothing about the key. */
    public String submitter() {
        return admin ? "admin" : "supplier:" + supplier;
    }

    /** For logs: the supplier code or "admin"; never anything about the key. */
    public String name() {
        String who = admin ? "admin" : supplier;
        return keyId == null ? who : who + "(key " + keyId + ")";
    }
}
