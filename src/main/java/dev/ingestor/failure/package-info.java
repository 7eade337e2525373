/**
 * What routes/error-handling.camel.yaml decides with: {@link dev.ingestor.failure.TransientFailures}, the one answer
 * to "will it work if tried again?" for the stages and the HTTP API alike, and the redelivery policies the route
 * configurations name, and the transaction policy routes wrap their steps in, whose rollback hands a failure to the
 * caller's redelivery.
 */
package dev.ingestor.failure;
