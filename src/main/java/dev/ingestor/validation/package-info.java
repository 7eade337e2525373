/**
 * The validation stage (routes/validation.camel.yaml): record readers for CSV and JSON, the rules of a delivery
 * advice line, and quarantine of the records that break them, each with a reason naming the field.
 */
package dev.ingestor.validation;
