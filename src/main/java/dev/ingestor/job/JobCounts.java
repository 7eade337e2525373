package dev.ingestor.job;

import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * How many jobs each supplier has in each state, read from the counts the database keeps (tables job_count and
 * job_count_delta, migration V17): the triggers on import_job append a delta for every job inserted, deleted or
 * moved to another state, whoever did it, and {@link #fold} moves the deltas into the counts. A read costs the
 * number of suppliers and states plus the deltas since the last fold, however many jobs the table holds.
 */
@Component("jobCounts")
public class JobCounts {

    private final JdbcTemplate jdbc;

    public JobCounts(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** Jobs per supplier and state (states without jobs are left out); exact as of one snapshot. */
    public Map<String, Map<JobState, Long>> bySupplierAndState() {
        Map<String, Map<JobState, Long>> counts = new TreeMap<>();
        jdbc.query("""
                SELECT supplier, state, sum(jobs) FROM (
                  SELECT supplier, state, jobs FROM job_count
                  UNION ALL
                  SELECT supplier, state, jobs FROM job_count_delta) c
                GROUP BY supplier, state HAVING sum(jobs) <> 0""", rs -> {
            counts.computeIfAbsent(rs.getString(1), supplier -> new EnumMap<>(JobState.class))
                    .put(JobState.valueOf(rs.getString(2)), rs.getLong(3));
        });
        return counts;
    }

    /** Jobs per state over every supplier (states without jobs are left out). */
    public Map<JobState, Long> byState() {
        Map<JobState, Long> counts = new EnumMap<>(JobState.class);
        bySupplierAndState().values()
                .forEach(perState -> perState.forEach((state, jobs) -> counts.merge(state, jobs, Long::sum)));
        return counts;
    }

    /**
     * Moves the deltas into the counts (route job-counts, every few seconds), so a read sums few rows; returns how
     * many deltas it moved, 0 when another instance was folding at that moment.
     */
    public long fold() {
        Long taken = jdbc.queryForObject("SELECT job_count_fold()", Long.class);
        return taken == null ? 0 : taken;
    }
}
