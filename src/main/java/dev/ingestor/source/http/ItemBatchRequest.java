package dev.ingestor.source.http;

import java.nio.file.Path;

/**
 * A checked POST .../items: the supplier, its Idempotency-Key, sync or bulk, the items (canonical JSON Lines in
 * a temporary file, deleted when the exchange is done), the fingerprint of the whole request
 * (method, path, mode and canonical body), and who submitted it (the caller, as the job keeps it).
 */
record ItemBatchRequest(String supplier, String idempotencyKey, boolean bulk, Path items,
        String fingerprint, String submittedBy) {
}
