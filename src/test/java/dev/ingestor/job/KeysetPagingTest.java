package dev.ingestor.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import tools.jackson.databind.JsonNode;

/**
 * The job lists are paged by key: walking them page by page by cursor returns every job exactly once while new
 * jobs arrive, "more" is right at the edges, and a page is read through an index, not by reading the table.
 */
class KeysetPagingTest extends IngestorTestSupport {

    @Autowired
    ImportJobStore jobs;

    /** {@code jobs} at-rest jobs of {@code supplier} received at {@code receivedAt} (SQL), as a load would. */
    private void insertJobs(String supplier, int jobs, String state, String receivedAt) {
        jdbc.update("""
                INSERT INTO import_job (id, supplier, state, key, file_name, size, source, request_key,
                                        received_at, updated_at)
                SELECT gen_random_uuid(), ?, ?, ? || ':' || md5(n || ?) || md5(random()::text),
                       'f-' || n || '.csv', 1, 'test', 'r-' || n, ?::timestamptz, ?::timestamptz
                FROM generate_series(1, ?) n""", supplier, state, supplier, receivedAt, receivedAt, receivedAt, jobs);
    }

    private JsonNode page(String path) throws Exception {
        HttpResponse<String> response = get(path);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return JSON.readTree(response.body());
    }

    @Test
    void everyJobOnceAcrossPagesWhileNewJobsArrive() throws Exception {
        // ties on received_at (one load statement, one now()) are told apart by the id
        insertJobs("ACME", 20, "COMPLETED", "2026-11-01T10:00:00Z");
        insertJobs("ACME", 20, "COMPLETED", "2026-11-01T10:00:01Z");
        insertJobs("GLOBEX", 13, "FAILED", "2026-11-01T10:00:01Z");
        Set<String> before = new HashSet<>(jdbc.queryForList("SELECT id::text FROM import_job", String.class));

        List<String> seen = new ArrayList<>();
        String next = null;
        int pages = 0;
        do {
            JsonNode page = page("/api/v1/admin/jobs?size=7" + (next == null ? "" : "&after=" + next));
            assertThat(page.has("total")).as("a page by cursor counts nothing").isFalse();
            page.get("items").forEach(job -> seen.add(job.get("id").asString()));
            next = page.get("more").asBoolean() ? page.get("next").asString() : null;
            // new jobs arrive between the pages, newer than any listed: they do not shift the pages still to come
            insertJobs("ACME", 3, "COMPLETED", "now()");
            pages++;
        } while (next != null);

        assertThat(pages).isEqualTo(8);
        assertThat(seen).doesNotHaveDuplicates();
        assertThat(new HashSet<>(seen)).isEqualTo(before);
        // and in the list's order
        List<String> ordered = jdbc.queryForList("SELECT id::text FROM import_job WHERE id = ANY (?::uuid[])"
                + " ORDER BY received_at DESC, id DESC", String.class, (Object) seen.toArray(String[]::new));
        assertThat(seen).isEqualTo(ordered);
    }

    @Test
    void moreIsRightAtTheEdges() throws Exception {
        JsonNode empty = page("/api/v1/admin/jobs?size=5");
        assertThat(empty.get("items")).isEmpty();
        assertThat(empty.get("more").asBoolean()).isFalse();
        assertThat(empty.get("next").isNull()).isTrue();

        insertJobs("ACME", 5, "COMPLETED", "2026-11-01T10:00:00Z");
        JsonNode exactlyFull = page("/api/v1/admin/jobs?size=5");
        assertThat(exactlyFull.get("items")).hasSize(5);
        assertThat(exactlyFull.get("more").asBoolean()).as("five jobs, five a page: nothing follows").isFalse();

        insertJobs("ACME", 1, "COMPLETED", "2026-10-01T10:00:00Z");
        JsonNode first = page("/api/v1/admin/jobs?size=5");
        assertThat(first.get("more").asBoolean()).isTrue();
        JsonNode last = page("/api/v1/admin/jobs?size=5&after=" + first.get("next").asString());
        assertThat(last.get("items")).hasSize(1);
        assertThat(last.get("items").get(0).get("receivedAt").asString()).startsWith("2026-10-01");
        assertThat(last.get("more").asBoolean()).isFalse();

        // by page number, as before cursors: page and total
        JsonNode numbered = page("/api/v1/admin/jobs?size=5&page=1");
        assertThat(numbered.get("total").asLong()).isEqualTo(6);
        assertThat(numbered.get("page").asInt()).isEqualTo(1);
        assertThat(numbered.get("items")).hasSize(1);
        // the public API keeps the total of its first page for partners that read it
        JsonNode partner = JSON.readTree(get("/api/v1/jobs?size=5", ACME_KEY).body());
        assertThat(partner.get("total").asLong()).isEqualTo(6);
        assertThat(partner.get("more").asBoolean()).isTrue();
        JsonNode partnerNext = JSON.readTree(
                get("/api/v1/jobs?size=5&after=" + partner.get("next").asString(), ACME_KEY).body());
        assertThat(partnerNext.has("total")).isFalse();
        assertThat(partnerNext.get("items")).hasSize(1);

        assertThat(get("/api/v1/admin/jobs?after=not-a-cursor").statusCode()).isEqualTo(400);
        // a cursor forged with a time PostgreSQL cannot hold, for a supplier's list and the admin's
        String forged = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(
                ("+999999999-01-01T00:00:00Z|" + new java.util.UUID(0, 0))
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(get("/api/v1/jobs?after=" + forged, ACME_KEY).statusCode()).isEqualTo(400);
        assertThat(get("/api/v1/admin/jobs?after=" + forged).statusCode()).isEqualTo(400);
        assertThat(get("/api/v1/admin/jobs?q=a&after=" + forged).statusCode()).isEqualTo(400);
        HttpResponse<String> both = get("/api/v1/admin/jobs?page=1&after=" + first.get("next").asString());
        assertThat(both.statusCode()).isEqualTo(400);
        assertThat(both.body()).contains("either after");
    }

    @Test
    void failedJobsAndDeadLettersArePagedByKeyToo() throws Exception {
        insertJobs("ACME", 4, "FAILED", "2026-11-01T10:00:00Z");
        insertJobs("GLOBEX", 3, "FAILED", "2026-11-01T10:00:00Z");
        jdbc.update("INSERT INTO dead_letter (job_id, stage, exception, attempts)"
                + " SELECT id, 'processing', 'E', 1 FROM import_job");
        for (String list : List.of("failed-jobs", "dead-letters")) {
            Set<String> seen = new HashSet<>();
            String next = null;
            do {
                JsonNode page = page("/api/v1/admin/" + list + "?size=2" + (next == null ? "" : "&after=" + next));
                page.get("items").forEach(row -> assertThat(seen.add(row.get("id").asString())).isTrue());
                next = page.get("more").asBoolean() ? page.get("next").asString() : null;
            } while (next != null);
            assertThat(seen).as(list).hasSize(7);
        }
        JsonNode acme = page("/api/v1/admin/failed-jobs?supplier=ACME&size=4");
        assertThat(acme.get("items")).hasSize(4);
        assertThat(acme.get("more").asBoolean()).isFalse();
    }

    /**
     * Over a table of a few hundred thousand jobs (generate_series) every filter of the job list reads its page
     * through an index: no plan of a page reads import_job whole (Seq Scan) or sorts (the index gives the order, so a
     * page stops after its rows). A search for a part of a file name is left out: no btree serves ILIKE '%part%', a
     * trigram index does ({@link FileNameSearchTest}; docs/design.md, Counting and paging).
     */
    @Test
    void aPageIsReadThroughAnIndexWhateverTheFilters() {
        // in slices, each well within the statement timeout on a busy machine
        for (int slice = 0; slice < 6; slice++) {
            jdbc.update("""
                    INSERT INTO import_job (id, supplier, state, key, file_name, size, source, request_key, received_at,
                                            updated_at)
                    SELECT gen_random_uuid(), (ARRAY['ACME', 'GLOBEX', 'INITECH', 'HANSA'])[1 + n % 4],
                           (ARRAY['COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED_WITH_ERRORS', 'REJECTED', 'FAILED'])
                               [1 + n % 6],
                           'K:' || md5(n::text) || md5(n::text), 'file-' || n || '.csv', 1, 'test', 'r-' || n,
                           timestamptz '2025-11-26' + n * interval '1 minute' / 2,
                           timestamptz '2025-11-26' + n * interval '1 minute' / 2
                    FROM generate_series(? * 50000 + 1, ? * 50000 + 50000) n""", slice, slice);
        }
        jdbc.execute("ANALYZE import_job");
        PageCursor cursor = new PageCursor(Instant.parse("2026-03-01T00:00:00Z"),
                "01900000-0000-7000-8000-000000000000");
        Instant since = Instant.parse("2026-02-01T00:00:00Z");
        Instant until = Instant.parse("2026-02-02T00:00:00Z");
        List<JobQuery> queries = List.of(
                new JobQuery(null, null, null, null, null, 0, 50, null, false),
                new JobQuery(null, null, null, null, null, 0, 50, cursor, false),
                new JobQuery("ACME", null, null, null, null, 0, 50, cursor, false),
                new JobQuery("ACME", JobState.FAILED, null, null, null, 0, 50, cursor, false),
                new JobQuery(null, JobState.REJECTED, null, null, null, 0, 50, cursor, false),
                new JobQuery("GLOBEX", null, since, until, null, 0, 50, null, false),
                new JobQuery(null, null, since, until, null, 0, 50, cursor, false));
        for (JobQuery query : queries) {
            ImportJobStore.Statement page = ImportJobStore.page(query);
            String plan = String.join("\n", jdbc.queryForList("EXPLAIN " + page.sql(), String.class,
                    page.args().toArray()));
            // read in the list's order from the index, not sorted after reading every match
            assertThat(plan).as(query + "\n" + plan).doesNotContain("Seq Scan").doesNotContain("Sort Key");
        }
        // the counts of the overview read no job either
        String overview = String.join("\n", jdbc.queryForList("EXPLAIN SELECT supplier, state, sum(jobs) FROM ("
                + " SELECT supplier, state, jobs FROM job_count UNION ALL"
                + " SELECT supplier, state, jobs FROM job_count_delta) c GROUP BY 1, 2", String.class));
        assertThat(overview).doesNotContain("import_job");
        assertThat(jobs.list(new JobQuery(null, null, null, null, null, 0, 50, cursor, false)).items())
                .hasSize(50);
    }
}
