package dev.ingestor.job;

import java.util.List;

/**
 * A page of jobs, newest first. {@code more}: whether rows follow this page; {@code next}: the cursor of the page
 * after (null when none). {@code page} and {@code total} only when asked for by page number (null otherwise): a
 * total counts every matching job, which costs a read of all of them.
 */
public record JobPage(List<ImportJob> items, Integer page, int size, Long total, boolean more, String next) {
}
