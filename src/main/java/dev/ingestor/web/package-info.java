/**
 * What every HTTP route shares: API keys and the caller, problem+json answers, body limits and spooling, query
 * parameters and paging, and the servlet filters around the routes.
 */
package dev.ingestor.web;
