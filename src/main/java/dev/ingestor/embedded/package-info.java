/**
 * The embedded default run: a real PostgreSQL and a single-node Kafka broker started by the app when no server is
 * configured, on loopback, with generated passwords and data kept between runs. Setting a JDBC URL and Kafka
 * bootstrap servers turns them off.
 */
package dev.ingestor.embedded;
