/**
 * HTTP pushes (routes/source-http.camel.yaml): a pushed file on its way to the shared intake, and JSON item batches
 * with request-level idempotency on (supplier, Idempotency-Key), processed in one transaction while the caller waits
 * or taken by the stages like a file.
 */
package dev.ingestor.source.http;
