/**
 * What routes/error-handling.camel.yaml decides with: {@link dev.ingestor.failure.TransientFailures}, the one answer
 * to "will it work if tried again?" for the stages and the HTTP API alike, and the redelivery policies the route
 * configurations name.
 */
package dev.ingestor.failure;
