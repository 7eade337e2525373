package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.ingestor.intake.IntakeHeaders;
import dev.ingestor.intake.IntakeResult;
import dev.ingestor.intake.IntakeSettings;
import dev.ingestor.support.CapturedLogs;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import org.apache.camel.Exchange;
import org.apache.camel.component.file.GenericFileEndpoint;
import org.apache.camel.component.scheduler.SchedulerEndpoint;
import org.apache.camel.model.BeanDefinition;
import org.apache.camel.model.Model;
import org.apache.camel.model.ProcessDefinition;
import org.apache.camel.model.ProcessorDefinition;
import org.apache.camel.model.ThreadsDefinition;
import org.apache.camel.support.DefaultExchange;
import org.apache.camel.support.ScheduledPollConsumer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

class FileDropIntakeTest extends IngestorTestSupport {

    private static final byte[] ADVICE = """
            source_id,source_version,sku,quantity,delivery_date
            A-1,1,SKU-1,10,2026-12-01
            """.getBytes(StandardCharsets.UTF_8);

    @Test
    void theSameFileDroppedTwiceIsOneJobSeenTwice() throws Exception {
        drop("ACME", "advice.csv", ADVICE);
        awaitFiles(INBOX.resolve("ACME/.done"), 1);
        drop("ACME", "advice.csv", ADVICE);
        awaitFiles(INBOX.resolve("ACME/.duplicate"), 1);

        assertThat(jobCount()).isEqualTo(1);
        Map<String, Object> job = jdbc.queryForMap("SELECT * FROM import_job");
        assertThat(job.get("duplicate_count")).isEqualTo(1);
        assertThat(job.get("key")).isEqualTo("ACME:" + sha256(ADVICE));
        assertThat(job.get("file_name")).isEqualTo("advice.csv");
        assertThat(job.get("size")).isEqualTo((long) ADVICE.length);
        assertThat(job.get("source")).isEqualTo("file-drop");
        // who submitted: the drop folder
        assertThat(job.get("submitted_by")).isEqualTo("drop:" + INBOX.resolve("ACME").toAbsolutePath());
        assertThat(job.get("last_seen_at")).isNotNull();
        assertThat(filesIn(INBOX.resolve("ACME"))).isEmpty();
        // the raw store holds the bytes under their hash
        assertThat(DATA.resolve("raw/ACME").resolve(sha256(ADVICE).substring(0, 2)).resolve(sha256(ADVICE)))
                .hasBinaryContent(ADVICE);
    }

    @Test
    void everyDroppedFileWritesOneInfoLineWithItsOutcome() throws Exception {
        try (CapturedLogs logs = CapturedLogs.of("dev.ingestor.intake")) {
            drop("ACME", "advice.csv", ADVICE);
            awaitFiles(INBOX.resolve("ACME/.done"), 1);
            drop("ACME", "again.csv", ADVICE);
            awaitFiles(INBOX.resolve("ACME/.duplicate"), 1);

            String job = jdbc.queryForObject("SELECT id::text FROM import_job", String.class);
            String rest = " supplier=ACME job=" + job + " key=ACME:" + sha256(ADVICE) + " source=file-drop file=";
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(logs.events())
                    .filteredOn(e -> e.getLevel() == Level.INFO && e.getFormattedMessage().startsWith("intake "))
                    .extracting(ILoggingEvent::getFormattedMessage)
                    .containsExactly("intake done" + rest + "advice.csv size=" + ADVICE.length,
                            "intake duplicate" + rest + "again.csv size=" + ADVICE.length));
        }
    }

    @Test
    void theSameBytesPushedAfterTheDropKeepTheDropFolderAsSubmitter() throws Exception {
        drop("ACME", "advice.csv", ADVICE);
        awaitJobs(1);
        HttpResponse<String> pushed = post("/api/v1/suppliers/ACME/files", ACME_KEY, "text/csv", ADVICE);
        assertThat(pushed.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(pushed.body()).get("submittedBy").asString())
                .isEqualTo("drop:" + INBOX.resolve("ACME").toAbsolutePath());
        assertThat(JSON.readTree(pushed.body()).get("duplicateCount").asInt()).isEqualTo(1);
        // a repeated push's count is written behind, within about a second
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5))
                .until(() -> jdbc.queryForObject("SELECT duplicate_count FROM import_job", Integer.class) == 1);
    }

    @Test
    void aFileWhoseJobRowWasDeletedByHandIsANewJobWhenDroppedAgain() throws Exception {
        byte[] advice = ("source_id,source_version,sku,quantity,delivery_date\nG-" + java.util.UUID.randomUUID()
                + ",1,SKU-1,10,2026-12-01\n").getBytes(StandardCharsets.UTF_8);
        drop("ACME", "first.csv", advice);
        awaitFiles(INBOX.resolve("ACME/.done"), 1);
        awaitSettled();
        // the key stays without its job, as an operator's DELETE leaves it
        jdbc.update("DELETE FROM import_job");
        assertThat(keyCount()).isEqualTo(1);

        drop("ACME", "again.csv", advice);
        awaitFiles(INBOX.resolve("ACME/.done"), 2);
        assertThat(filesIn(INBOX.resolve("ACME/.failed"))).isEmpty();
        assertThat(filesIn(INBOX.resolve("ACME/.duplicate"))).isEmpty();
        awaitJobs(1);
        awaitSettled();
        Map<String, Object> job = jdbc.queryForMap("SELECT * FROM import_job");
        assertThat(job.get("file_name")).isEqualTo("again.csv");
        assertThat(job.get("state")).isEqualTo("COMPLETED");
        assertThat(job.get("key")).isEqualTo("ACME:" + sha256(advice));
        assertThat(job.get("total")).isEqualTo(1L);
        assertThat(keyCount()).isEqualTo(1);
    }

    @Test
    void identicalBytesFromTwoSuppliersAreTwoJobs() throws Exception {
        drop("ACME", "shared-template.csv", ADVICE);
        drop("GLOBEX", "shared-template.csv", ADVICE);
        Files.createFile(INBOX.resolve("GLOBEX/shared-template.csv.done"));

        awaitJobs(2);
        assertThat(jdbc.queryForList("SELECT key FROM import_job ORDER BY key", String.class))
                .containsExactly("ACME:" + sha256(ADVICE), "GLOBEX:" + sha256(ADVICE));
    }

    @Test
    void twentyCopiesDroppedAtOnceAreOneJob() throws Exception {
        Path staging = Files.createDirectories(WORK.resolve("staging-20"));
        for (int i = 0; i < 20; i++) {
            Files.write(staging.resolve("copy-" + i + ".csv"), ADVICE);
        }
        for (int i = 0; i < 20; i++) {
            Files.move(staging.resolve("copy-" + i + ".csv"), INBOX.resolve("ACME/copy-" + i + ".csv"));
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> filesIn(INBOX.resolve("ACME/.done")).size()
                + filesIn(INBOX.resolve("ACME/.duplicate")).size() == 20);
        assertThat(jobCount()).isEqualTo(1);
        assertThat(keyCount()).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT duplicate_count FROM import_job", Integer.class)).isEqualTo(19);
        assertThat(filesIn(INBOX.resolve("ACME/.done"))).hasSize(1);
        assertThat(filesIn(INBOX.resolve("ACME/.duplicate"))).hasSize(19);
    }

    @Test
    void twentyRacingArrivalsOfTheSameBytesCreateOneJob() throws Exception {
        int racers = 20;
        CyclicBarrier start = new CyclicBarrier(racers);
        ExecutorService pool = Executors.newFixedThreadPool(racers);
        try {
            List<Future<Exchange>> results = new ArrayList<>();
            for (int i = 0; i < racers; i++) {
                int n = i;
                results.add(pool.submit(() -> {
                    Exchange exchange = new DefaultExchange(camelContext);
                    exchange.getIn().setBody(ADVICE);
                    exchange.getIn().setHeader(IntakeHeaders.SUPPLIER, "ACME");
                    exchange.getIn().setHeader(IntakeHeaders.FILE_NAME, "race-" + n + ".csv");
                    exchange.getIn().setHeader(IntakeHeaders.SOURCE, "test");
                    start.await();
                    return producer.send("direct:intake", exchange);
                }));
            }
            List<IntakeResult> outcomes = new ArrayList<>();
            for (Future<Exchange> result : results) {
                Exchange done = result.get();
                assertThat(done.getException()).isNull();
                outcomes.add(done.getMessage().getBody(IntakeResult.class));
            }
            assertThat(outcomes).filteredOn(r -> !r.duplicate()).hasSize(1);
            assertThat(outcomes).extracting(r -> r.job().id()).containsOnly(outcomes.get(0).job().id());
        } finally {
            pool.shutdownNow();
        }
        assertThat(jobCount()).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT duplicate_count FROM import_job", Integer.class)).isEqualTo(19);
    }

    // slow tier: a burst of many files
    @SlowTest
    @Test
    void everyClaimIsReleasedAfterABurstOfFiles() throws Exception {
        // more files at once than Camel's default release pool queues (1,000)
        Path staging = Files.createDirectories(WORK.resolve("staging-burst"));
        int files = 1500;
        for (int i = 0; i < files; i++) {
            Files.writeString(staging.resolve("burst-" + i + ".csv"),
                    "source_id,sku,quantity,delivery_date\nB-" + i + ",S,1,2026-12-01\n");
        }
        for (int i = 0; i < files; i++) {
            Files.move(staging.resolve("burst-" + i + ".csv"), INBOX.resolve("ACME/burst-" + i + ".csv"));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> filesIn(INBOX.resolve("ACME/.done")).size() == files);
        await().atMost(Duration.ofSeconds(15))
                .until(() -> jdbc.queryForObject("SELECT count(*) FROM file_claim", Long.class) == 0);
        assertThat(jobCount()).isEqualTo(files);
    }

    /**
     * The claim-release pool itself takes more pending releases than Camel's default profile queues (1,000), however
     * fast or slow this machine drains a burst: a release refused would leave its claim held until its lease ends.
     */
    @Test
    void theClaimReleasePoolQueuesMoreReleasesThanCamelsDefault() {
        ScheduledExecutorService releases = camelContext.getRegistry()
                .lookupByNameAndType(ClaimReleaseConfiguration.NAME, ScheduledExecutorService.class);
        List<ScheduledFuture<?>> pending = new ArrayList<>();
        try {
            for (int i = 0; i < 1500; i++) {
                pending.add(releases.schedule(() -> {}, 1, TimeUnit.HOURS));
            }
        } finally {
            pending.forEach(release -> release.cancel(false));
        }
        assertThat(pending).hasSize(1500);
    }

    /** Each supplier's route has a scheduler and marks of its own: a shared scheduler, a route after the first never
     * polls; shared marks would mix two routes' polls. */
    @Test
    void eachFileRouteHasASchedulerAndMarksOfItsOwn() {
        List<ScheduledPollConsumer> consumers = camelContext.getRoutes().stream()
                .map(route -> route.getConsumer())
                .filter(consumer -> consumer.getEndpoint() instanceof GenericFileEndpoint)
                .map(ScheduledPollConsumer.class::cast)
                .toList();
        assertThat(consumers).hasSizeGreaterThan(1);
        assertThat(consumers).extracting(ScheduledPollConsumer::getScheduler)
                .hasOnlyElementsOfType(FilePollsThroughErrors.class).doesNotHaveDuplicates();
        assertThat(consumers).extracting(consumer -> ((GenericFileEndpoint<?>) consumer.getEndpoint())
                .getInProgressRepository()).hasOnlyElementsOfType(InProgressMarks.class).doesNotHaveDuplicates();
    }

    /**
     * The template says when it hands a file to the supplier's threads, so a failed poll's other files go free: first
     * thing, on the poll thread, and just before the hand-off (after it, a queued file would count as not handed off).
     */
    @Test
    void theFileDropRouteSaysWhenItHandsAFileOff() throws Exception {
        List<ProcessorDefinition<?>> steps = camelContext.getCamelContextExtension().getContextPlugin(Model.class)
                .getRouteDefinition("file-drop-ACME").getOutputs().stream()
                // the route configuration's onException and the like are not steps of the flow
                .filter(step -> !step.isAbstract()).toList();
        assertThat(steps.get(0)).isInstanceOfSatisfying(ProcessDefinition.class,
                step -> assertThat(step.getRef()).isEqualTo(FileHandOff.NAME));
        assertThat(steps.get(1)).isInstanceOf(ThreadsDefinition.class);

        drop("ACME", "advice.csv", ADVICE);
        awaitFiles(INBOX.resolve("ACME/.done"), 1);
        InProgressMarks marks = (InProgressMarks) ((GenericFileEndpoint<?>) camelContext.getRoute("file-drop-ACME")
                .getEndpoint()).getInProgressRepository();
        assertThat(marks.recordsHandOffs()).isTrue();
    }

    /** The claims this instance holds are renewed every third of their lease. */
    @Test
    void theClaimsHeldAreRenewedEveryThirdOfTheLease(@Autowired IntakeSettings intake) {
        SchedulerEndpoint renewal = (SchedulerEndpoint) camelContext.getRoute("file-claim-renewal").getEndpoint();
        assertThat(renewal.getDelay()).isEqualTo(intake.getClaimLease().toMillis() / 3);
        assertThat(camelContext.getRouteController().getRouteStatus("file-claim-renewal").isStarted()).isTrue();
        assertThat(camelContext.getCamelContextExtension().getContextPlugin(Model.class)
                .getRouteDefinition("file-claim-renewal").getOutputs()).filteredOn(step -> !step.isAbstract())
                .singleElement().isInstanceOfSatisfying(BeanDefinition.class, step -> {
                    assertThat(step.getRef()).isEqualTo("fileClaimRepository");
                    assertThat(step.getMethod()).isEqualTo("renewHeld");
                });
    }

    /** Renewal reads the route of the exchange that took a claim: one that does not run is left to lapse. */
    @Test
    void aClaimOfARouteThatDoesNotRunIsNotRenewed(@Autowired FileClaimRepository claims) {
        Exchange taking = new DefaultExchange(camelContext);
        taking.getExchangeExtension().setFromRouteId("no-such-route");
        String key = INBOX.resolve("ACME/never-run.csv").toAbsolutePath().toString();
        assertThat(claims.add(taking, key)).isTrue();
        try {
            jdbc.update("UPDATE file_claim SET claimed_at = now() - interval '1 hour' WHERE claim_key = ?", key);
            claims.renewHeld();
            assertThat(jdbc.queryForObject("SELECT claimed_at < now() - interval '59 minutes' FROM file_claim"
                    + " WHERE claim_key = ?", Boolean.class, key)).as("not renewed").isTrue();
        } finally {
            claims.remove(taking, key);
        }
    }

    @Test
    void aFileWrittenSlowlyIsNotTakenHalfWritten() throws Exception {
        Path file = INBOX.resolve("ACME/slow.csv");
        ByteArrayBuilder written = new ByteArrayBuilder();
        try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.CREATE_NEW)) {
            for (int chunk = 0; chunk < 12; chunk++) {
                byte[] line = ("S-" + chunk + ",1,SKU-" + chunk + ",5,2026-12-0" + (chunk % 9 + 1) + "\n")
                        .getBytes(StandardCharsets.UTF_8);
                out.write(line);
                out.flush();
                written.add(line);
                Thread.sleep(150); // on purpose: a supplier writing slowly
                // half-way through, nothing may have been taken
                assertThat(jobCount()).isZero();
            }
        }
        awaitJobs(1);
        Map<String, Object> job = jdbc.queryForMap("SELECT * FROM import_job");
        assertThat(job.get("size")).isEqualTo((long) written.bytes().length);
        assertThat(job.get("key")).isEqualTo("ACME:" + sha256(written.bytes()));
    }

    @Test
    void aDoneFileSupplierWaitsForTheMarker() throws Exception {
        drop("GLOBEX", "advice.csv", ADVICE);
        // on purpose: past min-age and several polls, the file must still wait for its marker
        Thread.sleep(1500);
        assertThat(jobCount()).isZero();
        Files.createFile(INBOX.resolve("GLOBEX/advice.csv.done"));
        awaitJobs(1);
        awaitFiles(INBOX.resolve("GLOBEX/.done"), 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> filesIn(INBOX.resolve("GLOBEX")).isEmpty());
    }

    @Test
    void anEmptyFileBecomesARejectedJobWithAReason() throws Exception {
        drop("ACME", "empty.csv", new byte[0]);
        awaitJobs(1);
        Map<String, Object> job = jdbc.queryForMap("SELECT * FROM import_job");
        assertThat(job.get("state")).isEqualTo("REJECTED");
        assertThat(job.get("error")).isEqualTo("the file is empty (0 bytes)");
        awaitFiles(INBOX.resolve("ACME/.rejected"), 1);
    }

    @Test
    void aFolderThatIsNoSupplierHasItsFilesMovedToRejected() throws Exception {
        drop("acme", "advice.csv", ADVICE);
        drop("NOBODY", "advice.csv", ADVICE);
        Files.write(INBOX.resolve("at-the-root.csv"), ADVICE);
        try {
            awaitFiles(INBOX.resolve("acme/.rejected"), 1);
            awaitFiles(INBOX.resolve("NOBODY/.rejected"), 1);
            awaitFiles(INBOX.resolve(".rejected"), 1);
            assertThat(jobCount()).isZero();
        } finally {
            deleteTree(INBOX.resolve("acme"));
            deleteTree(INBOX.resolve("NOBODY"));
            deleteTree(INBOX.resolve(".rejected"));
        }
    }

    @Test
    void aFileNameWithControlCharactersIsRejectedAndKept() throws Exception {
        drop("ACME", "bad\u0007name.csv", ADVICE);
        awaitFiles(INBOX.resolve("ACME/.rejected"), 1);
        assertThat(jobCount()).isZero();
        assertThat(keyCount()).isZero();
        assertThat(filesIn(INBOX.resolve("ACME/.rejected")).get(0)).hasBinaryContent(ADVICE);
    }

    /**
     * A file whose time of change says it is an hour old while it is still being written (a network file system whose
     * server's clock runs behind ours, or a writer that sets old times): it is taken once polls min-age apart (400 ms
     * here) listed it unchanged, whole, as one job; never while it grows.
     */
    @Test
    void aGrowingFileWithAnOldTimeOfChangeIsTakenWholeOnceItSettles() throws Exception {
        Path file = INBOX.resolve("ACME/growing.csv");
        FileTime anHourAgo = FileTime.from(Instant.now().minus(Duration.ofHours(1)));
        ByteArrayBuilder whole = new ByteArrayBuilder();
        byte[] header = "source_id,source_version,sku,quantity,delivery_date\n".getBytes(StandardCharsets.UTF_8);
        whole.add(header);
        Files.write(file, header);
        Files.setLastModifiedTime(file, anHourAgo);
        String run = java.util.UUID.randomUUID().toString();
        for (int i = 0; i < 15; i++) {
            Thread.sleep(150);
            assertThat(jobCount()).as("jobs while the file grows, after %d lines", i).isZero();
            assertThat(filesIn(INBOX.resolve("ACME/.done"))).as("taken while growing, after %d lines", i).isEmpty();
            byte[] line = ("G-" + run + "-" + i + ",1,SKU-1,10,2026-12-01\n").getBytes(StandardCharsets.UTF_8);
            whole.add(line);
            Files.write(file, line, StandardOpenOption.APPEND);
            Files.setLastModifiedTime(file, anHourAgo);
        }

        awaitFiles(INBOX.resolve("ACME/.done"), 1);
        awaitJobs(1);
        Thread.sleep(1_000);
        assertThat(jobCount()).isEqualTo(1);
        byte[] bytes = whole.bytes();
        Map<String, Object> job = jdbc.queryForMap("SELECT * FROM import_job");
        assertThat(job.get("file_name")).isEqualTo("growing.csv");
        assertThat(job.get("size")).isEqualTo((long) bytes.length);
        assertThat(job.get("key")).isEqualTo("ACME:" + sha256(bytes));
        assertThat(filesIn(INBOX.resolve("ACME/.done")).get(0)).hasBinaryContent(bytes);
    }

    /**
     * A file found settled may wait for the supplier's threads before intake opens it, and a supplier that paused
     * longer than min-age may write on meanwhile. That file is not read half written: it is left in place, its wait
     * starts again, and it is taken whole once it has settled again. The supplier's four threads are held here by four
     * files whose content keys this test's transaction locks, so the late file waits, claimed, in their queue.
     */
    @Test
    void aFileWrittenToAfterItWasFoundSettledIsTakenWholeOnceItSettlesAgain(@Autowired DataSource data)
            throws Exception {
        String run = java.util.UUID.randomUUID().toString();
        byte[] header = "source_id,source_version,sku,quantity,delivery_date\n".getBytes(StandardCharsets.UTF_8);
        ByteArrayBuilder whole = new ByteArrayBuilder();
        whole.add(header);
        whole.add(("L-" + run + "-0,1,SKU-1,10,2026-12-01\n").getBytes(StandardCharsets.UTF_8));
        byte[] firstPart = whole.bytes();
        byte[] written = ("L-" + run + "-1,1,SKU-1,10,2026-12-01\n").getBytes(StandardCharsets.UTF_8);
        byte[] writtenLater = ("L-" + run + "-2,1,SKU-1,10,2026-12-01\n").getBytes(StandardCharsets.UTF_8);
        Path late = INBOX.resolve("ACME/late.csv");
        try (CapturedLogs logs = CapturedLogs.of("dev.ingestor.intake");
                Connection holder = data.getConnection()) {
            holdTheSupplierThreads(holder, run);
            Files.write(late, firstPart);
            // found settled and claimed: it waits in the threads' queue
            await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject(
                    "SELECT count(*) FROM file_claim WHERE claim_key LIKE '%late.csv'", Long.class) == 1);
            Files.write(late, written, StandardOpenOption.APPEND);
            holder.rollback();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> logs.count("changed since it was found settled") > 0
                            || !filesIn(INBOX.resolve("ACME/.done")).stream()
                                    .filter(f -> f.getFileName().toString().endsWith("late.csv")).toList().isEmpty());
            if (Files.exists(late)) {
                // the supplier finishes the file it paused in
                Files.write(late, writtenLater, StandardOpenOption.APPEND);
            }
        }
        whole.add(written);
        whole.add(writtenLater);
        byte[] bytes = whole.bytes();
        awaitFiles(INBOX.resolve("ACME/.done"), 5);
        List<Map<String, Object>> jobs = jdbc.queryForList("SELECT * FROM import_job WHERE file_name = 'late.csv'");
        assertThat(jobs).as("the late file's jobs: only its whole content").hasSize(1);
        assertThat(jobs.get(0).get("key")).isEqualTo("ACME:" + sha256(bytes));
        assertThat(jobs.get(0).get("size")).isEqualTo((long) bytes.length);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM intake_failure", Long.class)).isZero();
    }

    /**
     * The poll that found a file settled claims it only after its listing, later when the claims before it wait (held
     * here by a lock on the claims' table), and Camel reads the file's size and time of change again once it has
     * claimed it. A file written to between its listing and its claim is no more settled than one written to after:
     * it is not read half written, but taken whole once it has settled again.
     */
    @Test
    void aFileWrittenToBetweenItsListingAndItsClaimIsTakenWholeOnceItSettlesAgain(@Autowired DataSource data)
            throws Exception {
        String run = java.util.UUID.randomUUID().toString();
        ByteArrayBuilder whole = new ByteArrayBuilder();
        whole.add("source_id,source_version,sku,quantity,delivery_date\n".getBytes(StandardCharsets.UTF_8));
        whole.add(("C-" + run + "-0,1,SKU-1,10,2026-12-01\n").getBytes(StandardCharsets.UTF_8));
        byte[] firstPart = whole.bytes();
        byte[] written = ("C-" + run + "-1,1,SKU-1,10,2026-12-01\n").getBytes(StandardCharsets.UTF_8);
        byte[] writtenLater = ("C-" + run + "-2,1,SKU-1,10,2026-12-01\n").getBytes(StandardCharsets.UTF_8);
        Path claimedLate = INBOX.resolve("ACME/claimed-late.csv");
        try (CapturedLogs logs = CapturedLogs.of("dev.ingestor.intake");
                Connection holder = data.getConnection()) {
            holder.setAutoCommit(false);
            try (var lock = holder.createStatement()) {
                lock.execute("LOCK TABLE file_claim IN SHARE MODE");
            }
            Files.write(claimedLate, firstPart);
            // found settled by a listing: the poll's claim of it waits for the lock
            await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                            + " AND query LIKE 'INSERT INTO file_claim%'",
                    Long.class) == 1);
            Files.write(claimedLate, written, StandardOpenOption.APPEND);
            holder.rollback();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> logs.count("changed since it was found settled") > 0
                            || !filesIn(INBOX.resolve("ACME/.done")).stream()
                                    .filter(f -> f.getFileName().toString().endsWith("claimed-late.csv")).toList()
                                    .isEmpty());
            if (Files.exists(claimedLate)) {
                // the supplier finishes the file it paused in
                Files.write(claimedLate, writtenLater, StandardOpenOption.APPEND);
            }
        }
        whole.add(written);
        whole.add(writtenLater);
        byte[] bytes = whole.bytes();
        await().atMost(Duration.ofSeconds(20)).until(() -> !Files.exists(claimedLate));
        List<Map<String, Object>> jobs = jdbc.queryForList(
                "SELECT * FROM import_job WHERE file_name = 'claimed-late.csv'");
        assertThat(jobs).as("the file's jobs: only its whole content").hasSize(1);
        assertThat(jobs.get(0).get("key")).isEqualTo("ACME:" + sha256(bytes));
    }

    /**
     * An instance paused (a long GC pause, a frozen VM) while a file it had claimed waited in its supplier's queue, for
     * longer than the claim's lease: another instance took the file over, imported it and moved it to .done/. The
     * resumed instance finds the file gone when it comes to open it. That is no failure of the file, which is not this
     * instance's any more: nothing is recorded, no supplier is told that it failed, no redelivery waits on it. The
     * supplier's four threads are held by four files whose content keys this test's transaction locks, so the file
     * waits, claimed, in their queue.
     */
    @Test
    void aFileTakenOverWhileItWaitedInTheQueueIsNoFailureOfThePausedInstance(@Autowired DataSource data)
            throws Exception {
        String run = java.util.UUID.randomUUID().toString();
        Path taken = INBOX.resolve("ACME/taken-over.csv");
        try (CapturedLogs logs = CapturedLogs.of("dev.ingestor.intake");
                Connection holder = data.getConnection()) {
            holdTheSupplierThreads(holder, run);
            Files.write(taken, ("source_id,source_version,sku,quantity,delivery_date\nT-" + run
                    + ",1,SKU-1,10,2026-12-01\n").getBytes(StandardCharsets.UTF_8));
            // found settled and claimed: it waits in the threads' queue
            await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject(
                    "SELECT count(*) FROM file_claim WHERE claim_key LIKE '%taken-over.csv'", Long.class) == 1);
            // the pause outlasts the claim's lease: another instance takes the claim over, imports the file and
            // moves it away
            jdbc.update("UPDATE file_claim SET owner = 'other-instance/' || gen_random_uuid()"
                    + " WHERE claim_key LIKE '%taken-over.csv'");
            Files.createDirectories(INBOX.resolve("ACME/.done"));
            Files.move(taken, INBOX.resolve("ACME/.done/20261130-taken-over.csv"));
            // the resumed instance's threads go on
            holder.rollback();
            awaitFiles(INBOX.resolve("ACME/.done"), 5);
            // answered: let go of, or (what must not happen) recorded as failed
            await().atMost(Duration.ofSeconds(10)).until(() -> logs.messages().stream()
                    .anyMatch(line -> line.contains("taken-over.csv") && line.contains("intake not taken"))
                    || jdbc.queryForObject("SELECT count(*) FROM intake_failure", Long.class) > 0);
        }
        assertThat(jdbc.queryForList("SELECT reason FROM intake_failure", String.class))
                .as("intake failures recorded").isEmpty();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM notification WHERE type LIKE 'intake%'", Long.class))
                .as("suppliers told of a failure").isZero();
    }

    /**
     * Holds ACME's four file-drop threads until {@code holder}'s transaction ends: four files dropped whose content
     * keys it locks, each waiting for its key's lock in intake. A file the route takes next waits in their queue.
     */
    private void holdTheSupplierThreads(Connection holder, String run) throws Exception {
        holder.setAutoCommit(false);
        for (int i = 0; i < 4; i++) {
            byte[] busy = ("source_id,source_version,sku,quantity,delivery_date\nB-" + run + "-" + i
                    + ",1,SKU-1,10,2026-12-01\n").getBytes(StandardCharsets.UTF_8);
            try (var lock = holder.prepareStatement(
                    "SELECT pg_advisory_xact_lock(hashtext('ingestor.content-key'), hashtext(?))")) {
                lock.setString(1, "ACME:" + sha256(busy));
                lock.execute();
            }
            drop("ACME", "busy-" + i + ".csv", busy);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> jdbc.queryForObject(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted", Long.class) == 4);
    }

    /** A time of change in the future does not hold the file (nor the poll) back: only our clock counts. */
    @Test
    void aFileWithATimeOfChangeInTheFutureIsTakenOnceItSettles() throws Exception {
        drop("ACME", "ahead.csv", ADVICE);
        Files.setLastModifiedTime(INBOX.resolve("ACME/ahead.csv"),
                FileTime.from(Instant.now().plus(Duration.ofHours(1))));
        await().atMost(Duration.ofSeconds(10)).until(() -> filesIn(INBOX.resolve("ACME/.done")).size() == 1);
        awaitJobs(1);
    }

    static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }

    private static final class ByteArrayBuilder {
        private final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();

        void add(byte[] b) {
            out.writeBytes(b);
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }
}
