/**
 * The HTTP front door on Spring Security: API-key authentication before any body is read, per-key limits,
 * throttling of failed authentication, the demo keys kept to loopback, and the headers every answer carries.
 */
package dev.ingestor.security;
