package dev.ingestor.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The dead letters waiting that the overview reads are the letters in the table not replayed, exactly: after
 * letters written, replayed one by one and by job, deleted with their jobs by retention's cascade, changed by plain
 * SQL, and written and replayed at once on several connections while folds run; a wrong count or a lost row is
 * made right by the recount.
 */
class DeadLetterCountTest extends IngestorTestSupport {

    @Autowired
    DeadLetterStore letters;

    @Autowired
    PlatformTransactionManager transactionManager;

    private long counted() {
        return jdbc.queryForObject("SELECT count(*) FROM dead_letter WHERE replayed_at IS NULL", Long.class);
    }

    /** {@code jobs} FAILED jobs of ACME, inserted by SQL; their ids. */
    private List<UUID> failedJobs(int jobs) {
        return jdbc.queryForList("""
                INSERT INTO import_job (id, supplier, state, key, file_name, size, source, request_key)
                SELECT gen_random_uuid(), 'ACME', 'FAILED', 'ACME:' || md5(random()::text), 'f-' || n || '.csv', 1,
                       'test', 'r-' || n
                FROM generate_series(1, ?) n RETURNING id""", UUID.class, jobs);
    }

    /** {@code perJob} dead letters for each of {@code jobs}, in one statement. */
    private void letters(List<UUID> jobs, int perJob) {
        jdbc.update("""
                INSERT INTO dead_letter (job_id, stage, exception, attempts)
                SELECT j, 'processing', 'java.io.IOException', 3
                FROM unnest(?::uuid[]) j, generate_series(1, ?)""",
                jobs.stream().map(UUID::toString).toArray(String[]::new), perJob);
    }

    @Test
    void lettersWrittenReplayedAndDeletedAreCountedExactly() {
        List<UUID> jobs = failedJobs(40);
        letters(jobs, 2);
        assertThat(letters.waiting()).isEqualTo(80).isEqualTo(counted());

        // replayed one by one, and all of a job's at once (one statement, two letters)
        long first = jdbc.queryForObject("SELECT min(id) FROM dead_letter", Long.class);
        String replayOne = "UPDATE dead_letter SET replayed_at = now(), replayed_by = 'test' WHERE id = ?"
                + " AND replayed_at IS NULL";
        jdbc.update(replayOne, first);
        jdbc.update(replayOne, first); // again: no longer waiting, no change
        letters.markReplayedOfJob(jobs.get(1), "test");
        assertThat(letters.waiting()).isEqualTo(77).isEqualTo(counted());
        letters.fold();

        // plain SQL: a letter written already replayed, a replay undone by hand, an update that replays nothing
        jdbc.update("INSERT INTO dead_letter (job_id, stage, exception, attempts, replayed_at)"
                + " VALUES (?, 'validation', 'x', 1, now())", jobs.get(2));
        jdbc.update("UPDATE dead_letter SET replayed_at = NULL WHERE job_id = ?", jobs.get(1));
        jdbc.update("UPDATE dead_letter SET message = 'seen' WHERE job_id = ?", jobs.get(3));
        assertThat(letters.waiting()).isEqualTo(79).isEqualTo(counted());

        // retention deletes jobs; their letters go by the foreign key's cascade
        jdbc.update("DELETE FROM import_job WHERE id = ANY(?::uuid[])",
                (Object) jobs.subList(0, 10).stream().map(UUID::toString).toArray(String[]::new));
        assertThat(letters.waiting()).isEqualTo(60).isEqualTo(counted());
        letters.fold();
        assertThat(letters.waiting()).isEqualTo(counted());

        truncate("import_job CASCADE");
        assertThat(letters.waiting()).isZero();
        letters(failedJobs(3), 1);
        assertThat(letters.waiting()).isEqualTo(3).isEqualTo(counted());
    }

    @Test
    void lettersWrittenAndReplayedOnSeveralConnectionsAreCountedExactly() throws Exception {
        List<UUID> jobs = failedJobs(200);
        whileFolding(worker -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            for (int i = 0; i < 300; i++) {
                // each worker writes and replays the letters of its own share of the jobs
                UUID job = jobs.get(random.nextInt(jobs.size() / 4) * 4 + worker);
                if (random.nextInt(3) == 0) {
                    letters.markReplayedOfJob(job, "test");
                } else {
                    letters(List.of(job), 1 + random.nextInt(2));
                }
            }
        }, () -> {
            letters.fold();
            assertThat(letters.waiting()).isNotNegative();
        });
        assertThat(letters.waiting()).isEqualTo(counted());
        foldUntilNoDeltas(letters::fold, "dead_letter_count_delta");
        assertThat(letters.waiting()).isEqualTo(counted());
    }

    @Test
    void theRecountMakesAWrongCountRight() {
        letters(failedJobs(5), 3);
        // a count gone wrong (as after triggers disabled by hand), with deltas not folded yet besides
        jdbc.update("UPDATE dead_letter_count SET waiting = waiting + 7");
        jdbc.update("INSERT INTO dead_letter_count_delta (waiting) VALUES (5)");
        assertThat(letters.waiting()).isNotEqualTo(counted());
        jdbc.execute("SELECT dead_letter_count_recount()");
        assertThat(letters.waiting()).isEqualTo(counted()).isEqualTo(15);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM dead_letter_count_delta", Long.class)).isZero();
    }

    @Test
    void aCountThatLostItsRowIsCountedFromTheTableUntilTheRecountMakesItAgain() {
        letters(failedJobs(4), 1);
        jdbc.update("DELETE FROM dead_letter_count");
        letters(failedJobs(2), 1);
        assertThat(letters.waiting()).isEqualTo(counted()).isEqualTo(6);
        // a fold would move the deltas into nothing: it refuses, and they stay
        assertThatThrownBy(letters::fold).hasMessageContaining("dead_letter_count_recount()");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM dead_letter_count_delta", Long.class)).isPositive();
        jdbc.execute("SELECT dead_letter_count_recount()");
        letters.fold();
        assertThat(jdbc.queryForObject("SELECT waiting FROM dead_letter_count", Long.class)).isEqualTo(6);
    }

    @Test
    void aTruncateUnderOneSnapshotIsRefused() {
        letters(failedJobs(2), 1);
        TransactionTemplate oneSnapshot = new TransactionTemplate(transactionManager);
        oneSnapshot.setIsolationLevel(TransactionDefinition.ISOLATION_REPEATABLE_READ);
        assertThatThrownBy(() -> oneSnapshot.executeWithoutResult(status -> jdbc.execute("TRUNCATE dead_letter")))
                .hasMessageContaining("TRUNCATE dead_letter needs READ COMMITTED");
        assertThatThrownBy(() -> oneSnapshot.executeWithoutResult(
                status -> jdbc.execute("TRUNCATE import_job CASCADE")))
                .hasMessageContaining("TRUNCATE import_job needs READ COMMITTED");
        assertThat(letters.waiting()).isEqualTo(counted()).isEqualTo(2);
    }
}
