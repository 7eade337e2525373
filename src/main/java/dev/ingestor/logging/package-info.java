/**
 * Supplier-controlled text made safe once: {@link dev.ingestor.logging.SafeText} for stored reasons and log
 * arguments, and the logback message converter that escapes every log line. Used by every stage that logs or
 * stores what a supplier sent.
 */
package dev.ingestor.logging;
