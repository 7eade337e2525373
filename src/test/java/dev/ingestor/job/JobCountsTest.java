package dev.ingestor.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The jobs per supplier and state that the overview and the gauges read are the jobs in the table, exactly: after
 * transitions made at once on several connections while folds run, after rows inserted and deleted by plain SQL,
 * and after retention.
 */
class JobCountsTest extends IngestorTestSupport {

    private static final String[] AT_REST = {"COMPLETED", "COMPLETED_WITH_ERRORS", "REJECTED", "FAILED"};

    @Autowired
    JobCounts counts;

    @Autowired
    PlatformTransactionManager transactionManager;

    /** Jobs at rest (the stages leave them alone) of {@code supplier}, inserted by SQL as a load script would. */
    private void insertJobs(String supplier, int jobs, String state, String updatedAt) {
        jdbc.update("""
                INSERT INTO import_job (id, supplier, state, key, file_name, size, source, request_key, updated_at)
                SELECT gen_random_uuid(), ?, ?, ? || ':' || md5(random()::text), 'f-' || n || '.csv', 1, 'test',
                       'r-' || n, ?::timestamptz
                FROM generate_series(1, ?) n""", supplier, state, supplier, updatedAt, jobs);
    }

    private Map<String, Map<JobState, Long>> counted() {
        Map<String, Map<JobState, Long>> result = new TreeMap<>();
        jdbc.query("SELECT supplier, state, count(*) FROM import_job GROUP BY 1, 2",
                rs -> {
                    result.computeIfAbsent(rs.getString(1), s -> new EnumMap<>(JobState.class))
                            .put(JobState.valueOf(rs.getString(2)), rs.getLong(3));
                });
        return result;
    }

    @Test
    void concurrentTransitionsOnSeveralConnectionsAreCountedExactly() throws Exception {
        insertJobs("ACME", 300, "COMPLETED", "now()");
        insertJobs("GLOBEX", 300, "FAILED", "now()");
        List<String> ids = jdbc.queryForList("SELECT id::text FROM import_job", String.class);
        whileFolding(worker -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int i = 0; i < 400; i++) {
                // each worker moves its own share of the jobs
                String id = ids.get(random.nextInt(ids.size() / 4) * 4 + worker);
                jdbc.update("UPDATE import_job SET state = ?, updated_at = now() WHERE id = ?::uuid",
                        AT_REST[random.nextInt(AT_REST.length)], id);
                if (i % 50 == 0) {
                    insertJobs(worker % 2 == 0 ? "ACME" : "INITECH", 5, "REJECTED", "now()");
                }
            }
        }, () -> {
            counts.fold();
            assertThat(counts.byState().values().stream().mapToLong(Long::longValue).sum())
                    .isGreaterThanOrEqualTo(600);
        });
        assertThat(counts.bySupplierAndState()).isEqualTo(counted());
        foldUntilNoDeltas(counts::fold, "job_count_delta");
        assertThat(counts.bySupplierAndState()).isEqualTo(counted());
    }

    @Test
    void rowsInsertedAndDeletedByPlainSqlAreCounted() {
        insertJobs("ACME", 1000, "COMPLETED", "now()");
        counts.fold();
        insertJobs("ACME", 250, "FAILED", "now()");
        jdbc.update(
                "DELETE FROM import_job WHERE id IN (SELECT id FROM import_job WHERE state = 'COMPLETED' LIMIT 100)");
        jdbc.update("UPDATE import_job SET supplier = 'GLOBEX' WHERE id IN"
                + " (SELECT id FROM import_job WHERE state = 'FAILED' LIMIT 50)");
        // a lease renewal or a checkpoint is not a change of state and leaves no delta; counted in one snapshot, as
        // the app's job-counts route may fold (delete) the deltas at any moment
        TransactionTemplate oneSnapshot = new TransactionTemplate(transactionManager);
        oneSnapshot.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
        oneSnapshot.executeWithoutResult(status -> {
            long deltas = jdbc.queryForObject("SELECT count(*) FROM job_count_delta", Long.class);
            jdbc.update("UPDATE import_job SET records_done = records_done + 1, updated_at = now()");
            assertThat(jdbc.queryForObject("SELECT count(*) FROM job_count_delta", Long.class)).isEqualTo(deltas);
        });

        assertThat(counts.bySupplierAndState()).isEqualTo(Map.of(
                "ACME", Map.of(JobState.COMPLETED, 900L, JobState.FAILED, 200L),
                "GLOBEX", Map.of(JobState.FAILED, 50L)));
        counts.fold();
        assertThat(counts.bySupplierAndState()).isEqualTo(counted());

        truncate("import_job CASCADE");
        assertThat(counts.bySupplierAndState()).isEmpty();
    }

    @Test
    void theRecountAgreesWithTheKeptCounts() {
        insertJobs("ACME", 40, "COMPLETED", "now()");
        Map<String, Map<JobState, Long>> kept = counts.bySupplierAndState();
        jdbc.execute("SELECT job_count_recount()");
        assertThat(counts.bySupplierAndState()).isEqualTo(kept).isEqualTo(counted());
    }
}
