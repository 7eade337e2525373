package dev.ingestor.source.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import javax.sql.DataSource;

import dev.ingestor.config.RetentionSettings;
import dev.ingestor.intake.CommittedKeys;
import dev.ingestor.intake.RawStore;
import dev.ingestor.job.ContentKey;
import dev.ingestor.job.ImportJobStore;
import dev.ingestor.job.JobLifecycle;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.web.HttpSettings;
import org.apache.camel.CamelContext;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Repeated HTTP pushes answered from the keys this instance saw committed: the same 200 and job as through
 * intake, no bytes stored, the arrival counted on the job within a second; a key whose transaction did not
 * commit is never answered that way.
 */
class KnownContentPushTest extends IngestorTestSupport {

    private static final String FILES = "/api/v1/suppliers/ACME/files";

    @Autowired
    ObjectMapper mapper;
    @Autowired
    CommittedKeys committedKeys;
    @Autowired
    RawStore rawStore;
    @Autowired
    JobLifecycle lifecycle;
    @Autowired
    DuplicatePushCounts counts;
    @Autowired
    DataSource dataSource;
    @Autowired
    ImportJobStore jobStore;
    @Autowired
    HttpSettings http;
    @Autowired
    RetentionSettings retention;
    @Autowired
    CamelContext camelContext;

    @BeforeEach
    void clean() {
        truncateAll();
    }

    private static byte[] csv() {
        return ("source_id,source_version,sku,quantity,delivery_date\nK-" + UUID.randomUUID()
                + ",1,SKU-1,5,2026-12-01\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    private HttpResponse<String> push(byte[] body, String fileName) throws Exception {
        return post(FILES, ACME_KEY, "application/octet-stream", body, "X-File-Name", fileName);
    }

    private static String key(byte[] body) throws Exception {
        return "ACME:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
    }

    @Test
    void aRepeatedPushIsAnsweredWithItsCommittedJobWithoutStoringItsBytes() throws Exception {
        byte[] body = csv();
        HttpResponse<String> first = push(body, "first.csv");
        assertThat(first.statusCode()).isEqualTo(202);
        JsonNode job = mapper.readTree(first.body());
        assertThat(committedKeys.jobOf(key(body))).hasToString(job.get("id").asString());

        // the raw file gone: intake would put the pushed bytes back in place, the answer from the key does not touch
        // the store
        Path raw = rawStore.pathOf(ContentKey.parse(key(body)));
        Files.delete(raw);
        HttpResponse<String> again = push(body, "retry.csv");
        assertThat(again.statusCode()).isEqualTo(200);
        JsonNode answered = mapper.readTree(again.body());
        assertThat(answered.get("id").asString()).isEqualTo(job.get("id").asString());
        assertThat(answered.get("fileName").asString()).as("the job's, not the retry's").isEqualTo("first.csv");
        assertThat(answered.get("duplicateCount").asInt()).isEqualTo(1);
        assertThat(answered.get("state").asString()).isNotBlank();
        assertThat(again.headers().firstValue("Location")).hasValue("/api/v1/jobs/" + job.get("id").asString());
        assertThat(Files.exists(raw)).as("no bytes stored for a duplicate").isFalse();
        assertThat(jobCount()).isEqualTo(1);
    }

    /**
     * What the bound of {@link CommittedKeys} may cost: a key it no longer holds (made room, or forgotten) is
     * answered the ordinary way, through intake and its key in the database, with the same job; the answer never
     * depends on the cache. Intake putting the raw file back in place shows the push went that way.
     */
    @Test
    void aKeyThisInstanceNoLongerHoldsIsAnsweredThroughTheDatabase() throws Exception {
        byte[] body = csv();
        HttpResponse<String> first = push(body, "first.csv");
        assertThat(first.statusCode()).isEqualTo(202);
        String job = mapper.readTree(first.body()).get("id").asString();
        awaitSettled();
        committedKeys.forget(key(body));
        Path raw = rawStore.pathOf(ContentKey.parse(key(body)));
        Files.delete(raw);

        HttpResponse<String> again = push(body, "retry.csv");
        assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
        assertThat(mapper.readTree(again.body()).get("id").asString()).isEqualTo(job);
        assertThat(Files.exists(raw)).as("intake, not the cache, answered").isTrue();
        assertThat(jobCount()).isEqualTo(1);
        assertThat(committedKeys.jobOf(key(body))).as("held again once that answer committed").hasToString(job);
    }

    @Test
    void theDuplicateCountOfAnswersIsExactAndTheJobRowCatchesUpWithinSeconds() throws Exception {
        byte[] body = csv();
        String id = mapper.readTree(push(body, "count.csv").body()).get("id").asString();
        for (int n = 1; n <= 5; n++) {
            HttpResponse<String> again = push(body, "count.csv");
            assertThat(again.statusCode()).isEqualTo(200);
            assertThat(mapper.readTree(again.body()).get("duplicateCount").asInt()).isEqualTo(n);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> jdbc.queryForObject(
                "SELECT duplicate_count FROM import_job WHERE id = ?::uuid", Integer.class, id) == 5);
        assertThat(jdbc.queryForObject("SELECT last_seen_at IS NOT NULL FROM import_job WHERE id = ?::uuid",
                Boolean.class, id)).isTrue();
        JsonNode read = mapper.readTree(get("/api/v1/jobs/" + id, ACME_KEY).body());
        assertThat(read.get("duplicateCount").asInt()).isEqualTo(5);
    }

    @Test
    void concurrentRepeatedPushesAreEachCountedOnceInTheAnswersAndOnTheRow() throws Exception {
        byte[] body = csv();
        String id = mapper.readTree(push(body, "many.csv").body()).get("id").asString();
        int clients = 8;
        int pushesEach = 25;
        // the counts are written every few milliseconds meanwhile, not once a second: the answers race the writes
        AtomicBoolean pushing = new AtomicBoolean(true);
        Thread writer = new Thread(() -> {
            while (pushing.get()) {
                counts.flush();
                LockSupport.parkNanos(2_000_000);
            }
        }, "test-duplicate-count-writer");
        writer.start();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        List<Integer> answered = new ArrayList<>();
        try {
            List<Callable<List<Integer>>> calls = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                calls.add(() -> {
                    List<Integer> mine = new ArrayList<>();
                    for (int n = 0; n < pushesEach; n++) {
                        HttpResponse<String> again = push(body, "many.csv");
                        assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
                        mine.add(mapper.readTree(again.body()).get("duplicateCount").asInt());
                    }
                    return mine;
                });
            }
            for (Future<List<Integer>> client : pool.invokeAll(calls)) {
                answered.addAll(client.get());
            }
        } finally {
            pushing.set(false);
            writer.join();
            pool.shutdownNow();
        }
        int repeats = clients * pushesEach;
        // each arrival counted once: the answers are 1..repeats, none twice, none missed, whatever the writes did
        assertExactly(answered, 1, repeats);
        await().atMost(Duration.ofSeconds(5)).until(() -> jdbc.queryForObject(
                "SELECT duplicate_count FROM import_job WHERE id = ?::uuid", Integer.class, id) >= repeats);
        assertThat(jdbc.queryForObject("SELECT duplicate_count FROM import_job WHERE id = ?::uuid", Integer.class, id))
                .isEqualTo(repeats);
        assertThat(jobCount()).isEqualTo(1);
    }

    @Test
    void arrivalsOfAKeptJobFromManyThreadsAtOnceAreEachCountedOnce() throws Exception {
        byte[] body = csv();
        UUID id = UUID.fromString(mapper.readTree(push(body, "kept.csv").body()).get("id").asString());
        awaitSettled();
        // the first repeat reads the finished job and keeps it: the arrivals after it are counted in memory only,
        // as fast as threads can come, which HTTP alone does not reach on a busy machine
        assertThat(mapper.readTree(push(body, "kept.csv").body()).get("duplicateCount").asInt()).isEqualTo(1);
        int threads = 8;
        int arrivalsEach = 2_000;
        AtomicBoolean arriving = new AtomicBoolean(true);
        Thread writer = new Thread(() -> {
            while (arriving.get()) {
                counts.flush();
                LockSupport.parkNanos(1_000_000);
            }
        }, "test-duplicate-count-writer");
        writer.start();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Integer> answered = new ArrayList<>();
        try {
            List<Future<List<Integer>>> all = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                all.add(pool.submit(() -> {
                    go.await();
                    List<Integer> mine = new ArrayList<>(arrivalsEach);
                    for (int n = 0; n < arrivalsEach; n++) {
                        mine.add(counts.arrival(id, key(body), Instant.now()).orElseThrow().duplicateCount());
                    }
                    return mine;
                }));
            }
            go.countDown();
            for (Future<List<Integer>> thread : all) {
                answered.addAll(thread.get());
            }
        } finally {
            arriving.set(false);
            writer.join();
            pool.shutdownNow();
        }
        int arrivals = 1 + threads * arrivalsEach;
        assertExactly(answered, 2, arrivals);
        counts.flush();
        assertThat(jdbc.queryForObject("SELECT duplicate_count FROM import_job WHERE id = ?", Integer.class, id))
                .isEqualTo(arrivals);
    }

    @Test
    void arrivalsOfABatchThatFailedWithAnErrorAreWrittenOnceByTheNext() throws Exception {
        byte[] body = csv();
        UUID id = pushedAndSettled(body);
        AtomicBoolean failOnce = new AtomicBoolean(true);
        // no scheduled batches: this test's own flushes are the only ones
        DuplicatePushCounts failing = countsOn(failingOnce(failOnce, false), 0);
        try {
            assertThat(failing.arrival(id, key(body), Instant.now()).orElseThrow().duplicateCount()).isEqualTo(1);
            assertThatThrownBy(failing::flush).isInstanceOf(StackOverflowError.class);
            assertThat(failing.pendingOf(id)).isEqualTo(1);
            assertThat(failing.arrival(id, key(body), Instant.now()).orElseThrow().duplicateCount()).isEqualTo(2);

            assertThat(failing.flush()).isEqualTo(2);
            assertThat(jdbc.queryForObject("SELECT duplicate_count FROM import_job WHERE id = ?", Integer.class, id))
                    .isEqualTo(2);
            assertThat(failing.arrival(id, key(body), Instant.now()).orElseThrow().duplicateCount()).isEqualTo(3);
        } finally {
            failing.stop();
        }
    }

    @Test
    void arrivalsOfABatchThatFailedAfterItsStatementCommittedAreNotWrittenAgain() throws Exception {
        byte[] body = csv();
        UUID id = pushedAndSettled(body);
        AtomicBoolean failOnce = new AtomicBoolean(true);
        DuplicatePushCounts failing = countsOn(failingOnce(failOnce, true), 0);
        try {
            // read from the row and kept as read, with its count of 0
            assertThat(failing.arrival(id, key(body), Instant.now()).orElseThrow().duplicateCount()).isEqualTo(1);
            assertThatThrownBy(failing::flush).isInstanceOf(StackOverflowError.class);
            assertThat(jdbc.queryForObject("SELECT duplicate_count FROM import_job WHERE id = ?", Integer.class, id))
                    .isEqualTo(1);
            assertThat(failing.pendingOf(id)).isZero();
            assertThat(failing.flush()).isZero();
            // the copy was not told of the written arrival: dropped, the next push reads the row
            assertThat(failing.arrival(id, key(body), Instant.now()).orElseThrow().duplicateCount()).isEqualTo(2);
            assertThat(failing.flush()).isEqualTo(1);
            assertThat(jdbc.queryForObject("SELECT duplicate_count FROM import_job WHERE id = ?", Integer.class, id))
                    .isEqualTo(2);
        } finally {
            failing.stop();
        }
    }

    /** Pushes {@code body} as a new file and waits for its job to settle; answers the job's id. */
    private UUID pushedAndSettled(byte[] body) throws Exception {
        UUID id = UUID.fromString(mapper.readTree(push(body, "kept.csv").body()).get("id").asString());
        awaitSettled();
        return id;
    }

    /**
     * Duplicate counts beside the application's own, written through {@code database}, in batches every
     * {@code flushIntervalMs} (0: only when the test flushes).
     */
    private DuplicatePushCounts countsOn(JdbcTemplate database, long flushIntervalMs) {
        return new DuplicatePushCounts(database, jobStore, lifecycle, http, retention, camelContext, flushIntervalMs);
    }

    /**
     * The test's database, whose next batch statement (while {@code armed}) throws an {@link Error}, not an exception:
     * what may come past a catch of exceptions. Before the statement runs, or once it has committed.
     */
    private JdbcTemplate failingOnce(AtomicBoolean armed, boolean afterCommit) {
        return new JdbcTemplate(dataSource) {
            @Override
            public <T> T execute(ConnectionCallback<T> action) {
                if (!afterCommit && armed.getAndSet(false)) {
                    throw new StackOverflowError("on purpose, before the statement");
                }
                T result = super.execute(action);
                if (afterCommit && armed.getAndSet(false)) {
                    throw new StackOverflowError("on purpose, after the statement committed");
                }
                return result;
            }
        };
    }

    @Test
    void theScheduledBatchesGoOnAfterOneFailedWithAnError() throws Exception {
        byte[] body = csv();
        UUID id = pushedAndSettled(body);
        AtomicBoolean failOnce = new AtomicBoolean(true);
        DuplicatePushCounts failing = countsOn(failingOnce(failOnce, false), DuplicatePushCounts.FLUSH_INTERVAL_MS);
        try {
            failing.arrival(id, key(body), Instant.now()).orElseThrow();
            await().atMost(Duration.ofSeconds(5)).until(() -> !failOnce.get());
            failing.arrival(id, key(body), Instant.now()).orElseThrow();
            // written by the schedule, about a second later: the batch that failed did not end it
            await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject(
                    "SELECT duplicate_count FROM import_job WHERE id = ?", Integer.class, id) == 2);
        } finally {
            failing.stop();
        }
    }

    @Test
    void answersFromAKeptJobGoOnWhileABatchOfCountsWaitsForTheDatabase() throws Exception {
        byte[] body = csv();
        UUID id = UUID.fromString(mapper.readTree(push(body, "waiting.csv").body()).get("id").asString());
        awaitSettled();
        // read and kept
        assertThat(mapper.readTree(push(body, "waiting.csv").body()).get("duplicateCount").asInt()).isEqualTo(1);

        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (Connection holder = dataSource.getConnection()) {
            // another transaction holds the job's row: the batch's statement waits for it
            holder.setAutoCommit(false);
            try (PreparedStatement lock = holder.prepareStatement("SELECT 1 FROM import_job WHERE id = ? FOR UPDATE")) {
                lock.setObject(1, id);
                lock.executeQuery().close();
            }
            // an arrival to write, made now so that no batch of the instance's own schedule wrote it before the lock
            assertThat(counts.arrival(id, key(body), Instant.now()).orElseThrow().duplicateCount()).isEqualTo(2);
            Future<Integer> batch = threads.submit(counts::flush);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> jdbc.queryForObject("SELECT count(*) FROM pg_stat_activity"
                            + " WHERE datname = current_database() AND wait_event_type = 'Lock'"
                            + " AND query LIKE '%duplicate_count%'", Integer.class) > 0);

            // an answer neither waits for the statement nor loses the arrival it is writing
            Future<Integer> answer = threads.submit(
                    () -> counts.arrival(id, key(body), Instant.now()).orElseThrow().duplicateCount());
            assertThat(answer.get(5, TimeUnit.SECONDS)).isEqualTo(3);
            // what the row does not hold yet: the batch waiting (one or both arrivals before it) and this one
            assertThat(counts.pendingOf(id)).isEqualTo(3 - jdbc.queryForObject(
                    "SELECT duplicate_count FROM import_job WHERE id = ?", Integer.class, id));

            holder.rollback();
            batch.get(10, TimeUnit.SECONDS);
        } finally {
            threads.shutdownNow();
        }
        assertThat(counts.arrival(id, key(body), Instant.now()).orElseThrow().duplicateCount()).isEqualTo(4);
        counts.flush();
        assertThat(jdbc.queryForObject("SELECT duplicate_count FROM import_job WHERE id = ?", Integer.class, id))
                .isEqualTo(4);
    }

    /** Each count from {@code first} to {@code last} answered once: none twice, none missed. */
    private static void assertExactly(List<Integer> answered, int first, int last) {
        List<Integer> sorted = answered.stream().sorted().toList();
        assertThat(sorted.equals(IntStream.rangeClosed(first, last).boxed().toList()))
                .as("counts answered %d to %d once each; answered %d counts, %d distinct, from %d to %d", first, last,
                        sorted.size(), sorted.stream().distinct().count(), sorted.get(0), sorted.get(sorted.size() - 1))
                .isTrue();
    }

    @Test
    void aKeyWhoseCommitFailedIsNotAnsweredAsADuplicateAndTheRetryMakesTheJob() throws Exception {
        byte[] body = csv();
        // fails the intake transaction at its COMMIT, after every step of it ran: the latest point a key could
        // have been taken as committed too early
        jdbc.execute("CREATE OR REPLACE FUNCTION test_fail_at_commit() RETURNS trigger LANGUAGE plpgsql AS"
                + " $$ BEGIN RAISE EXCEPTION 'commit refused by the test'; END $$");
        jdbc.execute(
                "CREATE CONSTRAINT TRIGGER test_fail_at_commit AFTER INSERT ON import_job DEFERRABLE INITIALLY DEFERRED"
                        + " FOR EACH ROW WHEN (NEW.file_name = 'commit-fails.csv') EXECUTE FUNCTION test_fail_at_commit()");
        try {
            HttpResponse<String> failed = push(body, "commit-fails.csv");
            assertThat(failed.statusCode()).as(failed.body()).isGreaterThanOrEqualTo(500);
        } finally {
            jdbc.execute("DROP TRIGGER test_fail_at_commit ON import_job");
            jdbc.execute("DROP FUNCTION test_fail_at_commit()");
        }
        assertThat(jobCount()).isZero();
        assertThat(keyCount()).isZero();
        assertThat(committedKeys.jobOf(key(body))).as("a rolled-back key is not known as committed").isNull();

        HttpResponse<String> retry = push(body, "retry.csv");
        assertThat(retry.statusCode()).as(retry.body()).isEqualTo(202);
        assertThat(jobCount()).isEqualTo(1);
    }

    @Test
    void aFinishedJobIsAnsweredAsReadUntilThisInstanceSendsAJobBackToWork() throws Exception {
        byte[] body = csv();
        String id = mapper.readTree(push(body, "kept.csv").body()).get("id").asString();
        awaitSettled();
        assertThat(mapper.readTree(push(body, "kept.csv").body()).get("fileName").asString()).isEqualTo("kept.csv");

        // changed behind the instance's back: the finished job's answer comes from the row as read, not read again
        jdbc.update("UPDATE import_job SET file_name = 'changed-behind.csv' WHERE id = ?::uuid", id);
        JsonNode second = mapper.readTree(push(body, "kept.csv").body());
        assertThat(second.get("fileName").asString()).isEqualTo("kept.csv");
        assertThat(second.get("duplicateCount").asInt()).as("the count goes on with the arrivals").isEqualTo(2);
        assertThat(second.get("state").asString()).isEqualTo("COMPLETED");

        // an operator sends the job round again here (reprocess: one statement, no transaction of its own): the
        // next answer reads it
        assertThat(lifecycle.reprocess(UUID.fromString(id))).isTrue();
        JsonNode third = mapper.readTree(push(body, "kept.csv").body());
        assertThat(third.get("fileName").asString()).isEqualTo("changed-behind.csv");
        assertThat(third.get("duplicateCount").asInt()).isEqualTo(3);

        // the same once more through a transition counted after its transaction commits (revalidate)
        awaitSettled();
        assertThat(push(body, "kept.csv").statusCode()).isEqualTo(200);
        jdbc.update("UPDATE import_job SET file_name = 'changed-again.csv' WHERE id = ?::uuid", id);
        assertThat(mapper.readTree(push(body, "kept.csv").body()).get("fileName").asString())
                .isEqualTo("changed-behind.csv");
        assertThat(lifecycle.revalidate(UUID.fromString(id))).isTrue();
        JsonNode sixth = mapper.readTree(push(body, "kept.csv").body());
        assertThat(sixth.get("fileName").asString()).isEqualTo("changed-again.csv");
        assertThat(sixth.get("duplicateCount").asInt()).as("exact across the copies and the batches written")
                .isEqualTo(6);
        await().atMost(Duration.ofSeconds(5)).until(() -> jdbc.queryForObject(
                "SELECT duplicate_count FROM import_job WHERE id = ?::uuid", Integer.class, id) == 6);
    }

    @Test
    void aJobAWorkerHoldsIsReadForEveryRepeatedPush() throws Exception {
        byte[] body = csv();
        String id = mapper.readTree(push(body, "held.csv").body()).get("id").asString();
        awaitSettled();
        // as if a worker of another instance held it in processing for the next hour
        jdbc.update("UPDATE import_job SET state = 'PROCESSING', lease_owner = 'another-instance',"
                + " lease_until = now() + interval '1 hour' WHERE id = ?::uuid", id);
        assertThat(mapper.readTree(push(body, "held.csv").body()).get("state").asString()).isEqualTo("PROCESSING");

        jdbc.update("UPDATE import_job SET state = 'COMPLETED', lease_owner = NULL, lease_until = NULL,"
                + " file_name = 'finished-behind.csv' WHERE id = ?::uuid", id);
        JsonNode after = mapper.readTree(push(body, "held.csv").body());
        assertThat(after.get("state").asString()).isEqualTo("COMPLETED");
        assertThat(after.get("fileName").asString()).isEqualTo("finished-behind.csv");
    }

    @Test
    void aFinishedJobNearItsRetentionAgeIsReadForEveryRepeatedPush() throws Exception {
        byte[] body = csv();
        String id = mapper.readTree(push(body, "old.csv").body()).get("id").asString();
        awaitSettled();
        // a job retention may delete within minutes (ingestor.retention.job-max-age, 365 days)
        jdbc.update(
                "UPDATE import_job SET updated_at = now() - interval '365 days' + interval '5 minutes' WHERE id = ?::uuid",
                id);
        assertThat(push(body, "old.csv").statusCode()).isEqualTo(200);

        jdbc.update("UPDATE import_job SET file_name = 'changed-behind.csv' WHERE id = ?::uuid", id);
        assertThat(mapper.readTree(push(body, "old.csv").body()).get("fileName").asString())
                .isEqualTo("changed-behind.csv");
        // and once retention has taken it, its content is new again
        jdbc.update("DELETE FROM import_job WHERE id = ?::uuid", id);
        jdbc.update("DELETE FROM content_key WHERE key = ?", key(body));
        assertThat(push(body, "old.csv").statusCode()).isEqualTo(202);
    }

    @Test
    void aKeyWhoseJobWasDeletedSinceIsTakenAsNewContent() throws Exception {
        byte[] body = csv();
        String first = mapper.readTree(push(body, "kept.csv").body()).get("id").asString();
        awaitSettled();
        // what retention does to an old job: the job, its key and its raw file go together
        jdbc.update("DELETE FROM import_job WHERE id = ?::uuid", first);
        jdbc.update("DELETE FROM content_key WHERE key = ?", key(body));

        HttpResponse<String> again = push(body, "kept.csv");
        assertThat(again.statusCode()).isEqualTo(202);
        assertThat(mapper.readTree(again.body()).get("id").asString()).isNotEqualTo(first);
        assertThat(committedKeys.jobOf(key(body))).hasToString(mapper.readTree(again.body()).get("id").asString());
    }

    @Test
    void aJobRowDeletedByHandLeavesItsKeyAndTheSameBytesAreANewJob() throws Exception {
        byte[] body = csv();
        String first = mapper.readTree(push(body, "gone.csv").body()).get("id").asString();
        awaitSettled();
        // the key stays without its job, as an operator's DELETE leaves it
        jdbc.update("DELETE FROM import_job WHERE id = ?::uuid", first);
        assertThat(keyCount()).isEqualTo(1);

        HttpResponse<String> again = push(body, "again.csv");
        assertThat(again.statusCode()).as(again.body()).isEqualTo(202);
        String second = mapper.readTree(again.body()).get("id").asString();
        assertThat(second).isNotEqualTo(first);
        assertThat(committedKeys.jobOf(key(body))).hasToString(second);
        HttpResponse<String> repeated = push(body, "again.csv");
        assertThat(repeated.statusCode()).isEqualTo(200);
        assertThat(mapper.readTree(repeated.body()).get("id").asString()).isEqualTo(second);
        awaitSettled();
        assertThat(jdbc.queryForObject("SELECT state FROM import_job WHERE id = ?::uuid", String.class, second))
                .isEqualTo("COMPLETED");
        assertThat(jobCount()).isEqualTo(1);
        assertThat(keyCount()).isEqualTo(1);
    }

    @Test
    void pushesRacingAfterTheirJobWasDeletedMakeOneNewJob() throws Exception {
        byte[] body = csv();
        String first = mapper.readTree(push(body, "gone.csv").body()).get("id").asString();
        awaitSettled();
        jdbc.update("DELETE FROM import_job WHERE id = ?::uuid", first);

        int racers = 8;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(racers);
        try {
            java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(racers);
            java.util.List<java.util.concurrent.Future<HttpResponse<String>>> answers = new java.util.ArrayList<>();
            for (int i = 0; i < racers; i++) {
                answers.add(pool.submit(() -> {
                    start.await();
                    HttpResponse<String> answer = push(body, "race.csv");
                    while (answer.statusCode() == 429) {
                        // on purpose: a client waits as Retry-After tells it before it pushes again
                        Thread.sleep(1000L * Long.parseLong(answer.headers().firstValue("Retry-After").orElse("1")));
                        answer = push(body, "race.csv");
                    }
                    return answer;
                }));
            }
            java.util.List<Integer> statuses = new java.util.ArrayList<>();
            java.util.Set<String> ids = new java.util.HashSet<>();
            for (java.util.concurrent.Future<HttpResponse<String>> answer : answers) {
                HttpResponse<String> r = answer.get();
                assertThat(r.statusCode()).as(r.body()).isIn(200, 202);
                statuses.add(r.statusCode());
                ids.add(mapper.readTree(r.body()).get("id").asString());
            }
            assertThat(statuses).filteredOn(s -> s == 202).hasSize(1);
            assertThat(statuses).filteredOn(s -> s == 200).hasSize(racers - 1);
            assertThat(ids).hasSize(1).doesNotContain(first);
        } finally {
            pool.shutdownNow();
        }
        assertThat(jobCount()).isEqualTo(1);
    }

    @Test
    void aJobKeptAsReadAndDeletedByHandIsNotAnsweredOnceItsCountsAreWritten() throws Exception {
        byte[] body = csv();
        String first = mapper.readTree(push(body, "kept.csv").body()).get("id").asString();
        awaitSettled();
        assertThat(push(body, "kept.csv").statusCode()).isEqualTo(200);
        // that arrival written while the row is there: a batch of it after the delete would drop the copy before
        // the next push, which would then be new content and not the copy's answer this test is about
        counts.flush();
        jdbc.update("DELETE FROM import_job WHERE id = ?::uuid", first);
        // the copy as read may answer the pushes of one interval of writing counts (a second), no longer: the
        // count written for the job finds no row, and the copy goes
        HttpResponse<String> fromCopy = push(body, "kept.csv");
        assertThat(fromCopy.statusCode()).as(fromCopy.body()).isEqualTo(200);
        assertThat(mapper.readTree(fromCopy.body()).get("id").asString()).isEqualTo(first);
        counts.flush();

        HttpResponse<String> again = push(body, "kept.csv");
        assertThat(again.statusCode()).as(again.body()).isEqualTo(202);
        assertThat(mapper.readTree(again.body()).get("id").asString()).isNotEqualTo(first);
        assertThat(jobCount()).isEqualTo(1);
    }
}
