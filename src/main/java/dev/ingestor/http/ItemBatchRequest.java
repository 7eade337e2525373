package dev.ingestor.http;

import com.fasterxml.jackson.databind.node.ArrayNode;

/**
 * A checked POST .../items: the partner, its Idempotency-Key, sync or bulk, the items and the fingerprint
 * of the whole request (method, path, mode and canonical body).
 */
public record ItemBatchRequest(String partner, String idempotencyKey, boolean bulk, ArrayNode items, String fingerprint) {
}
