package dev.ingestor.config;

/**
 * How a supplier writes records: CSV with a header row, or JSON (an array of objects, or JSON Lines). A setting
 * only; the validation stage holds the readers ({@code RecordReader.open}).
 */
public enum RecordFormat {
    CSV, JSON
}
