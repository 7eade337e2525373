/**
 * The read API: the job views and job list of routes/api-jobs.camel.yaml, the item history of
 * routes/api-items.camel.yaml, and a quarantined record as the API shows it.
 */
package dev.ingestor.api;
