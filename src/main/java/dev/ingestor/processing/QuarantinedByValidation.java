package dev.ingestor.processing;

import java.util.List;
import java.util.UUID;
import java.util.function.LongPredicate;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The records of a job that validation quarantined, asked in the order processing reads them: true for a record
 * number validation quarantined. Read from {@code job_record} a page at a time by its key (job, record number), so a
 * file of millions of bad records costs one page of memory; each page is its own short statement, read between the
 * batches' transactions.
 */
final class QuarantinedByValidation implements LongPredicate {

    static final int PAGE = 10_000;

    private final JdbcTemplate jdbc;
    private final UUID jobId;
    private List<Long> page = List.of();
    private int next;
    private long after = -1;
    private boolean exhausted;

    QuarantinedByValidation(JdbcTemplate jdbc, UUID jobId) {
        this.jdbc = jdbc;
        this.jobId = jobId;
    }

    /** Whether validation quarantined record {@code recordNo}; asked with record numbers that only grow. */
    @Override
    public boolean test(long recordNo) {
        while (true) {
            while (next < page.size() && page.get(next) < recordNo) {
                next++;
            }
            if (next < page.size()) {
                return page.get(next) == recordNo;
            }
            if (exhausted) {
                return false;
            }
            page = jdbc.queryForList("SELECT record_no FROM job_record WHERE job_id = ? AND record_no > ?"
                    + " ORDER BY record_no LIMIT ?", Long.class, jobId, after, PAGE);
            next = 0;
            exhausted = page.size() < PAGE;
            if (!page.isEmpty()) {
                after = page.get(page.size() - 1);
            }
        }
    }
}
