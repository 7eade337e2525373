/**
 * Configuration: every {@code ingestor.*} property, typed and bound in {@link dev.ingestor.config.IngestorProperties}
 * and {@link dev.ingestor.config.SupplierProperties} (defaults in application.yaml), the instance name, the route
 * timings some route options need in milliseconds, and where routes/ is read from. The bottom of the house: it uses no other package of Ingestor.
 */
package dev.ingestor.config;
