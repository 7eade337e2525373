/**
 * The HTTP front door on Spring Security: API-key authentication before any body is read, Prometheus' scrape
 * token, per-key limits, throttling of failed authentication, the demo keys kept to direct loopback requests,
 * and the headers every answer carries.
 */
package dev.ingestor.security;
