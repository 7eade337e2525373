/**
 * What every HTTP route shares: API keys and the caller, problem+json answers, body limits and spooling, query
 * parameters and paging, the job views, and the job read API of routes/api-jobs.camel.yaml.
 */
package dev.ingestor.web;
