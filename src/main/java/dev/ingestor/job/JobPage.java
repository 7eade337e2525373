package dev.ingestor.job;

import java.util.List;

public record JobPage(List<ImportJob> items, int page, int size, long total) {
}
