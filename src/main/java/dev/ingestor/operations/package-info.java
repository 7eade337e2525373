/**
 * What an operator uses: the admin API and page (routes/admin-api.camel.yaml) and the actions on jobs,
 * housekeeping (routes/housekeeping.camel.yaml: retention and recovery), the gauges read from the database, and
 * Kafka health.
 */
package dev.ingestor.operations;
