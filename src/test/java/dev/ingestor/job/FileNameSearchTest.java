package dev.ingestor.job;

import static org.assertj.core.api.Assertions.assertThat;

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
 * A search by part of a file name ({@code q=...}) is served by the trigram index of V20 where pg_trgm may be
 * created, wherever the extension lives; where it may not, the migrations still succeed and the search still answers,
 * unindexed. Each case on a database of its own, migrated by Flyway as the application migrates it.
 */
class FileNameSearchTest {

    /**
     * One name of 200,000 holds it: ANALYZE's histogram of file names (a sample) then holds it in about one run in two
     * thousand, so the planner's estimate stays "few" and its choice the index.
     */
    private static final JobQuery RARE_PART = new JobQuery(null, null, null, null, "E-4242.CSV", 0, 50, null, false);
    /** A plan node's pages: those found in shared buffers and those read into them. */
    private static final Pattern BUFFERS = Pattern.compile("Buffers: shared(?: hit=(\\d+))?(?: read=(\\d+))?");

    @Test
    void aSearchByPartOfAFileNameReadsTheTrigramIndex() {
        JdbcTemplate jdbc = migrated("file_name_search_" + System.nanoTime(), null);
        insertJobs(jdbc, 200_000);

        assertThat(search(jdbc)).as("case ignored").containsExactly("file-4242.csv");
        // the matches found through the index, not the table read in list order until a page is full
        assertThat(plan(jdbc)).contains("import_job_file_name_trigrams").doesNotContain("Seq Scan");
    }

    /**
     * Every name holds the trigrams of {@code file-} and {@code .csv}: the store asks the index for the search's
     * part without them, which reads a fraction of the index's pages, and checks the whole search on what it finds
     * (a name holding the part but not the whole is not a match).
     */
    @Test
    void theIndexIsAskedForThePartOfTheSearchFewNamesHold() {
        JdbcTemplate jdbc = migrated("file_name_search_part_" + System.nanoTime(), null);
        insertJobs(jdbc, 200_000);
        jdbc.update("UPDATE import_job SET file_name = 'file-4242.xml' WHERE file_name = 'file-14242.csv'");
        ImportJobStore store = new ImportJobStore(jdbc, null);

        ImportJobStore.NameSample sample = store.nameSample();
        List<String> parts = SearchTrigrams.indexedParts(RARE_PART.search(), sample.names(), sample.frequent());
        assertThat(parts).containsExactly("E-4242.");
        assertThat(store.list(RARE_PART).items()).extracting(ImportJob::fileName).containsExactly("file-4242.csv");
        assertThat(indexPagesRead(jdbc, ImportJobStore.page(RARE_PART, parts)))
                .isLessThan(indexPagesRead(jdbc, ImportJobStore.page(RARE_PART, List.of())) / 3);
    }

    /**
     * The store's search is planned for its values every time: run on one connection far past the driver's
     * threshold for preparing a statement on the server, it is never prepared there, so PostgreSQL never plans it
     * once for any value (a plan that reads the jobs in list order: no index range from an unknown LIKE pattern).
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
                "import_job_file_name_trigrams")).contains("extensions.gin_trgm_ops");
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
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pg_indexes WHERE indexname = ?", Long.class,
                "import_job_file_name_trigrams")).isZero();
        assertThat(search(jdbc)).containsExactly("file-4242.csv");
    }

    private static JdbcTemplate migrated(String database, String user) {
        String url = TestPostgres.jdbcUrl(database);
        DriverManagerDataSource dataSource = user == null
                ? new DriverManagerDataSource(url)
                : new DriverManagerDataSource(url.replaceFirst("user=[^&]*", "user=" + user));
        Flyway.configure().dataSource(dataSource).load().migrate();
        return new JdbcTemplate(dataSource);
    }

    private static void insertJobs(JdbcTemplate jdbc, int jobs) {
        jdbc.update("""
                INSERT INTO import_job (id, supplier, state, key, file_name, size, source, request_key, received_at,
                                        updated_at)
                SELECT gen_random_uuid(), 'ACME', 'COMPLETED', 'K:' || md5(n::text) || md5(n::text),
                       'file-' || n || '.csv', 1, 'test', 'r-' || n,
                       timestamptz '2025-11-26' + n * interval '1 minute', timestamptz '2025-11-26'
                FROM generate_series(1, ?) n""", jobs);
        jdbc.execute("ANALYZE import_job");
    }

    private static List<String> search(JdbcTemplate jdbc) {
        ImportJobStore.Statement page = ImportJobStore.page(RARE_PART);
        return jdbc.queryForList(page.sql().replaceFirst("SELECT .*? FROM", "SELECT file_name FROM"), String.class,
                page.args().toArray());
    }

    /** The pages the trigram index's scan read for {@code page}, from {@code EXPLAIN (ANALYZE, BUFFERS)}. */
    private static long indexPagesRead(JdbcTemplate jdbc, ImportJobStore.Statement page) {
        List<String> plan = jdbc.queryForList("EXPLAIN (ANALYZE, BUFFERS) " + page.sql(), String.class,
                page.args().toArray());
        for (int i = 0; i < plan.size(); i++) {
            if (plan.get(i).contains("Bitmap Index Scan on import_job_file_name_trigrams")) {
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

    private static String plan(JdbcTemplate jdbc) {
        ImportJobStore.Statement page = ImportJobStore.page(RARE_PART);
        return String.join("\n", jdbc.queryForList("EXPLAIN " + page.sql(), String.class, page.args().toArray()));
    }
}
