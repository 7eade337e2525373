/**
 * The counters and timers every stage adds to ({@code ingestor_intake_total}, {@code ingestor_records_total}, dead
 * letters, redeliveries, stage time). The gauges read from the database are in {@code operations}.
 */
package dev.ingestor.metrics;
