/**
 * Webhook notifications (routes/notifications.camel.yaml): a notice is queued in the transaction of what it tells
 * (a job's end, an intake failure), delivered signed to the configured URL with backoff, and given up after its
 * attempts. Notices are not item events: they never go through the outbox to Kafka.
 */
package dev.ingestor.notification;
