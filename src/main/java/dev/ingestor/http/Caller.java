package dev.ingestor.http;

/**
 * Who is calling, as established by an API key: one supplier (a partner is a supplier code here, one
 * namespace) or an operator with the admin key, who reaches every supplier.
 */
public record Caller(String supplier, boolean admin) {

    public static final String PROPERTY = "IngestorCaller";

    public static Caller operator() {
        return new Caller(null, true);
    }

    public static Caller supplier(String code) {
        return new Caller(code, false);
    }

    public boolean mayActFor(String code) {
        return admin || (supplier != null && supplier.equals(code));
    }

    /** For logs: the supplier code or "admin"; never anything about the key. */
    public String name() {
        return admin ? "admin" : supplier;
    }
}
