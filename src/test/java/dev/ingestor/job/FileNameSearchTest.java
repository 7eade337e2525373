package dev.ingestor.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Instant;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ingestor.support.TestPostgres;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * A search by part of a file name ({@code q=...}) is served a month at a time by the trigram indexes of
 * {@code job_file_name}'s months (V22) where pg_trgm may be created, wherever the extension lives; where it may not,
 * the migrations still succeed and the search still answers, unindexed. Each case on a database of its own, migrated
 * by Flyway as the application migrates it.
 */
class FileNameSearchTest {

    /**
     * One name of 200,000 holds it: ANALYZE's histogram of file names (a sample) then holds it in about one run in two
     * thousand, so the planner's estimate stays "few" and its choice the index.
     */
    private static final JobQuery RARE_PART = new JobQuery(null, null, null, null, "E-4242.CSV", 0, 50, null, false);
    /** The month of {@code file-4242.csv} (jobs a minute apart from 2025-11-26). */
    private static final JobSearch.Window NOVEMBER = new JobSearch.Window(Instant.parse("2025-11-01T00:00:00Z"),
            Instant.parse("2025-12-01T00:00:00Z"));
    /** A plan node's pages: those found in shared buffers and those read into them. */
    private static final Pattern BUFFERS = Pattern.compile("Buffers: shared(?: hit=(\\d+))?(?: read=(\\d+))?");

    /** A migrated database of 200,000 jobs ({@link #insertJobs}), analysed, made once for the cases that copy it. */
    private static String twoHundredThousandJobs;

    @Test
    void aSearchByPartOfAFileNameReadsTheTrigramIndexOfItsMonth() {
        JdbcTemplate jdbc = withJobs("file_name_search_" + System.nanoTime());

        assertThat(new ImportJobStore(jdbc, null).list(RARE_PART).items()).extracting(ImportJob::fileName)
                .as("case ignored").containsExactly("file-4242.csv");
        // the month's matches found through its index, no other month read
        assertThat(plan(jdbc, JobSearch.page(RARE_PART, List.of(), NOVEMBER, 51)))
                .contains("Bitmap Index Scan on job_file_name_2025_11_file_name_idx")
                .doesNotContain("Seq Scan").doesNotContain("job_file_name_2025_12").doesNotContain("default");
        // the windows a page asks are whole months: the default partition, which a month being made locks, left out
        List<JobSearch.Window> windows = JobSearch.windows(RARE_PART, new JobSearch(jdbc).held());
        assertThat(windows).hasSize(2);
        for (JobSearch.Window window : windows) {
            assertThat(plan(jdbc, JobSearch.page(RARE_PART, List.of("E-4242."), window, 51)))
                    .contains("job_file_name_20").doesNotContain("default");
        }
    }

    /**
     * A page by cursor asks the newest month first and goes back only as far as its page needs: with the oldest
     * month locked away by another transaction the newest pages are still served. Paged to its end, the search finds
     * every match once, in list order, across the months' bounds.
     */
    @Test
    void aPageAsksTheNewestMonthsUntilItIsFull() throws SQLException {
        String database = "file_name_search_months_" + System.nanoTime();
        JdbcTemplate jdbc = withJobs(database);
        // two matches on either side of a month's bound
        jdbc.update("""
                INSERT INTO import_job (id, supplier, state, key, file_name, size, source, request_key, received_at)
                SELECT gen_random_uuid(), 'ACME', 'COMPLETED', 'K:' || md5('bound' || n) || md5('bound' || n),
                       'bound-' || n || '7.csv', 1, 'test',
                       'b-' || n, timestamptz '2026-01-01 00:00:00+00' - (n - 2) * interval '1 microsecond'
                FROM generate_series(1, 3) n""");
        JdbcTemplate store = new JdbcTemplate(new DriverManagerDataSource(TestPostgres.jdbcUrl(database)));
        store.setQueryTimeout(10);
        ImportJobStore jobs = new ImportJobStore(store, null);
        JobQuery firstPage = new JobQuery(null, null, null, null, "7.csv", 0, 50, null, false);

        try (Connection holder = DriverManager.getConnection(TestPostgres.jdbcUrl(database))) {
            holder.setAutoCommit(false);
            holder.createStatement().execute("LOCK TABLE job_file_name_2025_11 IN ACCESS EXCLUSIVE MODE");
            JobPage page = jobs.list(firstPage);
            assertThat(page.items()).hasSize(50).allMatch(job -> job.receivedAt().isAfter(NOVEMBER.until()));
            assertThat(page.more()).isTrue();
            holder.rollback();
        }

        List<ImportJob> all = new ArrayList<>();
        PageCursor after = null;
        do {
            JobPage page = jobs.list(new JobQuery(null, null, null, null, "7.csv", 0, 1000, after, false));
            all.addAll(page.items());
            after = page.next() == null ? null : PageCursor.parse(page.next());
        } while (after != null);
        assertThat(all).extracting(ImportJob::id).doesNotHaveDuplicates()
                .hasSize(jdbc.queryForObject("SELECT count(*) FROM import_job WHERE file_name LIKE '%7.csv'",
                        Integer.class));
        assertThat(all).extracting(ImportJob::receivedAt).isSortedAccordingTo(Comparator.reverseOrder());
        assertThat(all).extracting(ImportJob::fileName).contains("bound-17.csv", "bound-27.csv", "bound-37.csv");
        // a page by number counts every month's matches, and holds the same jobs as the cursor's walk
        JobPage fourth = jobs.list(new JobQuery(null, null, null, null, "7.csv", 3, 50));
        assertThat(fourth.total()).isEqualTo(all.size());
        assertThat(fourth.items()).extracting(ImportJob::id)
                .containsExactlyElementsOf(all.subList(150, 200).stream().map(ImportJob::id).toList());
    }

    /**
     * A job's name is written and deleted with the job; one of a month without its partition waits in the default
     * partition, found there, and moves into its month when the month is made.
     */
    @Test
    void aNameIsKeptWithItsJobAndMovesIntoItsMonthWhenTheMonthIsMade() {
        JdbcTemplate jdbc = migrated("file_name_search_default_" + System.nanoTime(), null);
        ImportJobStore jobs = new ImportJobStore(jdbc, null);
        jdbc.update("""
                INSERT INTO import_job (id, supplier, state, key, file_name, size, source, request_key, received_at)
                VALUES (gen_random_uuid(), 'ACME', 'COMPLETED', 'K:' || md5('far') || md5('far'), 'far-ahead.csv', 1,
                        'test', 'r-far', timestamptz '2040-05-10 12:00:00+00')""");
        JobQuery search = new JobQuery(null, null, null, null, "AHEAD", 0, 50, null, false);

        assertThat(jdbc.queryForObject("SELECT count(*) FROM job_file_name_default", Integer.class)).isOne();
        assertThat(jobs.list(search).items()).extracting(ImportJob::fileName).containsExactly("far-ahead.csv");

        assertThat(jdbc.queryForObject("SELECT job_file_name_month('2040-05-31 23:00:00+00')", String.class))
                .isEqualTo("job_file_name_2040_05");
        assertThat(jdbc.queryForObject("SELECT job_file_name_month('2040-05-01 00:00:00+00')", String.class))
                .as("made once").isNull();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM job_file_name_default", Integer.class)).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM job_file_name_2040_05", Integer.class)).isOne();
        assertThat(jobs.list(search).items()).extracting(ImportJob::fileName).containsExactly("far-ahead.csv");

        jdbc.update("UPDATE import_job SET file_name = 'renamed.csv' WHERE file_name <> 'x'");
        assertThat(jobs.list(search).items()).isEmpty();
        assertThat(jdbc.queryForList("SELECT file_name FROM job_file_name", String.class))
                .containsExactly("renamed.csv");
        jdbc.update("DELETE FROM import_job WHERE file_name <> 'x'");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM job_file_name", Integer.class)).isZero();

        insertJobs(jdbc, 10);
        jdbc.execute("TRUNCATE import_job CASCADE");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM job_file_name", Integer.class)).isZero();
    }

    /** Housekeeping makes this month and the next two; one gone is made again at its next run. */
    @Test
    void theMonthsAheadAreMadeByHousekeeping() {
        JdbcTemplate jdbc = migrated("file_name_search_ahead_" + System.nanoTime(), null);
        FileNameMonths months = new FileNameMonths(jdbc);
        YearMonth now = YearMonth.now(ZoneOffset.UTC);
        String next = String.format("job_file_name_%d_%02d", now.plusMonths(1).getYear(),
                now.plusMonths(1).getMonthValue());

        assertThat(months.prepare()).as("made by the migration").isEmpty();
        jdbc.execute("DROP TABLE " + next);
        assertThat(months.prepare()).containsExactly(next);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pg_inherits WHERE inhparent = 'job_file_name'::regclass",
                Integer.class)).as("three months and the default").isEqualTo(4);
    }

    /** An upgrade writes the names of the jobs already there into their months. */
    @Test
    void anUpgradeWritesTheNamesOfTheJobsThere() {
        String database = "file_name_search_upgrade_" + System.nanoTime();
        DriverManagerDataSource dataSource = new DriverManagerDataSource(TestPostgres.jdbcUrl(database));
        Flyway.configure().dataSource(dataSource).target("21").load().migrate();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        insertJobs(jdbc, 100_000);

        Flyway.configure().dataSource(dataSource).load().migrate();

        assertThat(jdbc.queryForObject("SELECT count(*) FROM job_file_name_2025_11", Integer.class)).isPositive();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM job_file_name_default", Integer.class)).isZero();
        assertThat(new ImportJobStore(jdbc, null).list(RARE_PART).items()).extracting(ImportJob::fileName)
                .containsExactly("file-4242.csv");
    }

    /**
     * Every name holds the trigrams of {@code file-} and {@code .csv}: the store asks the month's index for the
     * search's part without them, which reads fewer of its pages (11 against 18 here; a month's lists are short, a
     * year's in one index were not), and checks the whole search on what it finds
     * (a name holding the part but not the whole is not a match).
     */
    @Test
    void theIndexIsAskedForThePartOfTheSearchFewNamesHold() {
        JdbcTemplate jdbc = migrated("file_name_search_part_" + System.nanoTime(), null);
        JobSearch search = new JobSearch(jdbc);
        // a sample read before the table held anything is read again once ANALYZE has renewed the statistics
        assertThat(search.nameSample().names()).isEmpty();
        insertJobs(jdbc, 200_000);
        jdbc.update("UPDATE import_job SET file_name = 'file-4242.xml' WHERE file_name = 'file-14242.csv'");
        jdbc.execute("ANALYZE import_job");

        JobSearch.NameSample sample = search.nameSample();
        List<String> parts = SearchTrigrams.indexedParts(RARE_PART.search(), sample.names(), sample.frequent());
        assertThat(parts).containsExactly("E-4242.");
        assertThat(search.list(RARE_PART).items()).extracting(ImportJob::fileName).containsExactly("file-4242.csv");
        // the rare search's fenced read joined to the jobs for a supplier and a state
        assertThat(search.list(new JobQuery("ACME", JobState.COMPLETED, null, null, RARE_PART.search(), 0, 50, null,
                false)).items()).extracting(ImportJob::fileName).containsExactly("file-4242.csv");
        assertThat(search.list(new JobQuery("GLOBEX", JobState.COMPLETED, null, null, RARE_PART.search(), 0, 50,
                null, false)).items()).isEmpty();
        assertThat(search.list(new JobQuery("ACME", JobState.FAILED, null, null, RARE_PART.search(), 0, 50, null,
                false)).items()).isEmpty();
        assertThat(indexPagesRead(jdbc, JobSearch.page(RARE_PART, parts, NOVEMBER, 51)))
                .isLessThan(indexPagesRead(jdbc, JobSearch.page(RARE_PART, List.of(), NOVEMBER, 51)));
    }

    /**
     * The store's search is planned for its values every time: run on one connection far past the driver's
     * threshold for preparing a statement on the server, it is never prepared there, so PostgreSQL never plans it
     * once for any value (a plan that reads every month: no partition left out for unknown bounds, no index range
     * from an unknown LIKE pattern).
     */
    @Test
    void theStoresSearchIsNeverPlannedOnceForAnyValue() {
        String database = "file_name_search_plans_" + System.nanoTime();
        migrated(database, null);
        SingleConnectionDataSource connection = new SingleConnectionDataSource(TestPostgres.jdbcUrl(database), true);
        try {
            JdbcTemplate jdbc = new JdbcTemplate(connection);
            insertJobs(jdbc, 1_000);
            ImportJobStore store = new ImportJobStore(jdbc, null);
            JobQuery search = new JobQuery(null, null, null, null, "E-42.CSV", 0, 50, null, false);
            JobQuery counted = new JobQuery(null, null, null, null, "E-42.CSV", 0, 50, null, true);
            for (int run = 0; run < 12; run++) {
                assertThat(store.list(search).items()).extracting(ImportJob::fileName).containsExactly("file-42.csv");
                assertThat(store.list(counted).total()).isEqualTo(1);
            }
            // a list without a search may be prepared on the server: its filters are index ranges for any value
            for (int run = 0; run < 12; run++) {
                store.list(new JobQuery("ACME", null, null, null, null, 0, 50, null, false));
            }
            assertThat(jdbc.queryForList("SELECT statement FROM pg_prepared_statements", String.class))
                    .noneMatch(statement -> statement.contains("ILIKE"))
                    .anyMatch(statement -> statement.contains("FROM import_job"));
        } finally {
            connection.destroy();
        }
    }

    @Test
    void theExtensionInASchemaOfItsOwnServesTheIndexToo() {
        String database = "file_name_search_schema_" + System.nanoTime();
        JdbcTemplate admin = new JdbcTemplate(new DriverManagerDataSource(TestPostgres.jdbcUrl(database)));
        admin.execute("CREATE SCHEMA extensions");
        admin.execute("CREATE EXTENSION pg_trgm SCHEMA extensions");

        JdbcTemplate jdbc = migrated(database, null);

        assertThat(jdbc.queryForObject("SELECT indexdef FROM pg_indexes WHERE indexname = ?", String.class,
                "job_file_name_trigrams")).contains("extensions.gin_trgm_ops");
    }

    @Test
    void withoutTheRightToCreateTheExtensionTheMigrationsStillSucceedAndTheSearchAnswers() {
        String database = "file_name_search_no_trgm_" + System.nanoTime();
        String role = "no_extensions_" + System.nanoTime();
        JdbcTemplate admin = new JdbcTemplate(new DriverManagerDataSource(TestPostgres.jdbcUrl(database)));
        // may create tables in public, but not extensions in the database (no CREATE on it)
        admin.execute("CREATE ROLE " + role + " LOGIN");
        admin.execute("GRANT CREATE, USAGE ON SCHEMA public TO " + role);

        JdbcTemplate jdbc = migrated(database, role);
        insertJobs(jdbc, 20_000);

        assertThat(jdbc.queryForObject("SELECT count(*) FROM pg_extension WHERE extname = 'pg_trgm'", Long.class))
                .isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pg_indexes WHERE indexname LIKE '%trigrams'",
                Long.class)).isZero();
        assertThat(new ImportJobStore(jdbc, null).list(RARE_PART).items()).extracting(ImportJob::fileName)
                .containsExactly("file-4242.csv");

        // a DBA adds the index later as docs/operations.md says, housekeeping making a month meanwhile
        List<String> steps = dbaSteps();
        for (int i = 0; i < steps.size(); i++) {
            String step = steps.get(i);
            if (step.endsWith("\\gexec")) {
                admin.queryForList(step.substring(0, step.length() - "\\gexec".length()), String.class)
                        .forEach(admin::execute);
            } else {
                admin.execute(step);
            }
            if (step.contains("ON ONLY")) {
                jdbc.queryForList("SELECT job_file_name_month(now() + interval '3 months')", String.class);
            }
        }
        assertThat(admin.queryForObject("SELECT indisvalid FROM pg_index WHERE indexrelid = 'job_file_name_trigrams'"
                + "::regclass", Boolean.class)).as("every month's index attached").isTrue();
        jdbc.execute("ANALYZE job_file_name");
        assertThat(plan(jdbc, JobSearch.page(RARE_PART, List.of(), NOVEMBER, 51)))
                .contains("Bitmap Index Scan on job_file_name_2025_11_trigrams");
        assertThat(new ImportJobStore(jdbc, null).list(RARE_PART).items()).extracting(ImportJob::fileName)
                .containsExactly("file-4242.csv");
    }

    /**
     * The statements of docs/operations.md that add the trigram index later, in order: each ends in {@code ;}, or in
     * {@code \gexec} (psql runs each row of its answer as a statement).
     */
    private static List<String> dbaSteps() {
        String docs;
        try {
            docs = Files.readString(Path.of("docs/operations.md"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int start = docs.indexOf("```sql\nCREATE EXTENSION IF NOT EXISTS pg_trgm;");
        String block = docs.substring(docs.indexOf('\n', start) + 1, docs.indexOf("```", start + 3));
        List<String> steps = new ArrayList<>();
        StringBuilder step = new StringBuilder();
        for (String line : block.split("\n")) {
            if (line.startsWith("--")) {
                continue;
            }
            step.append(line).append('\n');
            String text = step.toString().strip();
            if (text.endsWith(";")) {
                steps.add(text.substring(0, text.length() - 1));
                step.setLength(0);
            } else if (text.endsWith("\\gexec")) {
                steps.add(text);
                step.setLength(0);
            }
        }
        assertThat(steps).as("the block of docs/operations.md").hasSize(4);
        return steps;
    }

    private static JdbcTemplate migrated(String database, String user) {
        String url = TestPostgres.jdbcUrl(database);
        DriverManagerDataSource dataSource = user == null
                ? new DriverManagerDataSource(url)
                : new DriverManagerDataSource(url.replaceFirst("user=[^&]*", "user=" + user));
        Flyway.configure().dataSource(dataSource).load().migrate();
        return new JdbcTemplate(dataSource);
    }

    /** A new database {@code database} holding 200,000 jobs, a copy of one filled once for this class. */
    private static synchronized JdbcTemplate withJobs(String database) {
        if (twoHundredThousandJobs == null) {
            String template = "file_name_search_jobs_" + System.nanoTime();
            insertJobs(migrated(template, null), 200_000);
            twoHundredThousandJobs = template;
        }
        return new JdbcTemplate(new DriverManagerDataSource(TestPostgres.copyOf(twoHundredThousandJobs, database)));
    }

    private static void insertJobs(JdbcTemplate jdbc, int jobs) {
        jdbc.update("""
                INSERT INTO import_job (id, supplier, state, key, file_name, size, source, request_key, received_at,
                                        updated_at)
                SELECT gen_random_uuid(), 'ACME', 'COMPLETED', 'K:' || md5(n::text) || md5(n::text),
                       'file-' || n || '.csv', 1, 'test', 'r-' || n,
                       timestamptz '2025-11-26' + n * interval '1 minute', timestamptz '2025-11-26'
                FROM generate_series(1, ?) n""", jobs);
        if (jdbc.queryForObject("SELECT to_regclass('job_file_name') IS NOT NULL", Boolean.class)) {
            // their months, as housekeeping made each ahead of it
            jdbc.queryForList("SELECT job_file_name_month(m AT TIME ZONE 'UTC') FROM generate_series("
                    + "timestamp '2025-11-01', timestamp '2026-04-01', interval '1 month') AS m", String.class);
            jdbc.execute("ANALYZE job_file_name");
        }
        jdbc.execute("ANALYZE import_job");
    }

    /** The pages the trigram index's scan read for {@code page}, from {@code EXPLAIN (ANALYZE, BUFFERS)}. */
    private static long indexPagesRead(JdbcTemplate jdbc, ImportJobStore.Statement page) {
        List<String> plan = jdbc.queryForList("EXPLAIN (ANALYZE, BUFFERS) " + page.sql(), String.class,
                page.args().toArray());
        for (int i = 0; i < plan.size(); i++) {
            if (plan.get(i).contains("Bitmap Index Scan on job_file_name_2025_11_file_name_idx")) {
                // its own Buffers line, before the next node's
                for (String line : plan.subList(i + 1, plan.size())) {
                    if (line.contains("->")) {
                        break;
                    }
                    Matcher m = BUFFERS.matcher(line);
                    if (m.find()) {
                        return (m.group(1) == null ? 0 : Long.parseLong(m.group(1)))
                                + (m.group(2) == null ? 0 : Long.parseLong(m.group(2)));
                    }
                }
            }
        }
        throw new AssertionError("no scan of the trigram index in " + String.join("\n", plan));
    }

    private static String plan(JdbcTemplate jdbc, ImportJobStore.Statement page) {
        return String.join("\n", jdbc.queryForList("EXPLAIN " + page.sql(), String.class, page.args().toArray()));
    }
}
