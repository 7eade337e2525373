package dev.ingestor.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.List;

import dev.ingestor.support.TestPostgres;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * The file-name search's months (V22) that retention emptied go (V23): those before the oldest kept job's month
 * (in UTC, whatever the session's time zone) that hold no name; the oldest job's month and every later one stay, so
 * does an old month that still holds a name, and so do this month and the one before when no job is kept. A search
 * by cursor still finds every kept job without reading the default partition. A month locked by another
 * transaction is left for the next run. A database of its own, migrated by Flyway as the application migrates it;
 * its session in a time zone far from UTC.
 */
@Timeout(120)
class FileNameMonthsTest {

    private static final JobQuery EVERY_CSV = new JobQuery(null, null, null, null, ".csv", 0, 50, null, false);

    @Test
    void monthsBeforeTheOldestJobsMonthThatHoldNoNameAreDropped() throws Exception {
        String url = TestPostgres.jdbcUrl("file_name_months_" + System.nanoTime());
        JdbcTemplate jdbc = migrated(url);
        // the driver sets the session's time zone to the JVM's at connect: set after it
        jdbc.execute("SET TimeZone = 'America/Los_Angeles'");
        assertThat(jdbc.queryForObject("SHOW TimeZone", String.class)).isEqualTo("America/Los_Angeles");
        // January to July 2025, as housekeeping made each ahead of it
        jdbc.queryForList("SELECT job_file_name_month(m AT TIME ZONE 'UTC') FROM generate_series("
                + "timestamp '2025-01-01', timestamp '2025-07-01', interval '1 month') AS m", String.class);
        // the oldest job arrived in April (UTC), on the 31st of March in the sessions' time zone
        job(jdbc, "april.csv", "2025-04-01T03:00:00Z");
        job(jdbc, "june.csv", "2025-06-10T08:00:00Z");
        // a name in February without its job, as a hand may leave one: its month stays
        jdbc.update("INSERT INTO job_file_name (job_id, received_at, file_name)"
                + " VALUES (gen_random_uuid(), '2025-02-14T08:00:00Z', 'by-hand.csv')");
        FileNameMonths months = new FileNameMonths(jdbc);

        assertThat(months.dropEmptied()).containsExactly("job_file_name_2025_01", "job_file_name_2025_03");
        assertThat(months(jdbc)).contains("job_file_name_2025_02", "job_file_name_2025_04", "job_file_name_2025_05",
                "job_file_name_2025_06", "job_file_name_2025_07", "job_file_name_default")
                .doesNotContain("job_file_name_2025_01", "job_file_name_2025_03");
        assertThat(new ImportJobStore(jdbc, null).list(EVERY_CSV).items()).extracting(ImportJob::fileName)
                .containsExactly("june.csv", "april.csv");
        List<JobSearch.Window> windows = JobSearch.windows(EVERY_CSV, new JobSearch(jdbc).held());
        assertThat(windows).as("June, then April and May").hasSize(2);
        windows.forEach(window -> assertThat(plan(jdbc, JobSearch.page(EVERY_CSV, List.of(), window, 51)))
                .contains("job_file_name_2025_0").doesNotContain("default"));
        assertThat(months.dropEmptied()).as("a second run").isEmpty();

        // retention deletes April's job while a search holds the months: April and May wait for the next run
        jdbc.update("DELETE FROM import_job WHERE file_name = 'april.csv'");
        try (Connection search = DriverManager.getConnection(url); Statement s = search.createStatement()) {
            search.setAutoCommit(false);
            s.execute("LOCK TABLE job_file_name IN ACCESS SHARE MODE");
            // waits for the lock at most a second, then leaves the months for the next run
            assertThat(assertTimeoutPreemptively(Duration.ofSeconds(30), months::dropEmptied))
                    .as("while a search holds the months").isEmpty();
            assertThat(months(jdbc)).contains("job_file_name_2025_04", "job_file_name_2025_05");
            search.rollback();
        }
        assertThat(months.dropEmptied()).containsExactly("job_file_name_2025_04", "job_file_name_2025_05");

        // no job kept: the empty months before last month go; February keeps its name, last month and this one stay
        jdbc.update("DELETE FROM import_job");
        // last month in UTC (the session's zone would name another month near a month's first or last days)
        YearMonth now = YearMonth.now(ZoneOffset.UTC);
        jdbc.queryForList("SELECT job_file_name_month(?)", String.class,
                now.minusMonths(1).atDay(1).atStartOfDay().atOffset(ZoneOffset.UTC));
        assertThat(months.dropEmptied()).containsExactly("job_file_name_2025_06", "job_file_name_2025_07");
        assertThat(months(jdbc)).contains("job_file_name_2025_02", "job_file_name_default", name(now.minusMonths(1)),
                name(now));
    }

    private static String name(YearMonth month) {
        return String.format("job_file_name_%d_%02d", month.getYear(), month.getMonthValue());
    }

    private static void job(JdbcTemplate jdbc, String fileName, String receivedAt) {
        jdbc.update("""
                INSERT INTO import_job (id, supplier, state, key, file_name, size, source, request_key, received_at,
                                        updated_at)
                VALUES (gen_random_uuid(), 'ACME', 'COMPLETED', 'K:' || md5(?) || md5(?), ?, 1, 'test', ?,
                        ?::timestamptz, ?::timestamptz)""",
                fileName, fileName, fileName, fileName, receivedAt, receivedAt);
    }

    private static List<String> months(JdbcTemplate jdbc) {
        return jdbc.queryForList("SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
                + " WHERE i.inhparent = 'job_file_name'::regclass ORDER BY 1", String.class);
    }

    private static String plan(JdbcTemplate jdbc, ImportJobStore.Statement page) {
        return String.join("\n", jdbc.queryForList("EXPLAIN " + page.sql(), String.class, page.args().toArray()));
    }

    /** On one connection (one session, whose time zone the test sets). */
    private static JdbcTemplate migrated(String url) {
        SingleConnectionDataSource dataSource = new SingleConnectionDataSource(url, true);
        Flyway.configure().dataSource(dataSource).load().migrate();
        return new JdbcTemplate(dataSource);
    }
}
