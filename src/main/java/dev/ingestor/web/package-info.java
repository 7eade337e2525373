/**
 * What every HTTP route shares: API keys and the caller, problem+json answers, body limits and spooling, query
 * parameters and paging, the job views, the job read API of routes/api-jobs.camel.yaml and the item history API of
 * routes/api-items.camel.yaml.
 */
package dev.ingestor.web;
