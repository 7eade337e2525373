package dev.ingestor.processing;

/** What names an item: its supplier and the supplier's id for it ({@code item}'s primary key). */
public record ItemKey(String supplier, String sourceId) {
}
