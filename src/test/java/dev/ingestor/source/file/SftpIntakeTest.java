package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import dev.ingestor.IngestorApplication;
import dev.ingestor.support.CapturedLogs;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import dev.ingestor.support.TestKafka;
import dev.ingestor.support.TestPostgres;
import dev.ingestor.support.TestSftpServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** Supplier ACME publishes on a real SFTP server (Apache MINA SSHD in this JVM); Ingestor polls it. */
// its own properties make its own Spring context; closed afterwards, so that no second set of routes keeps
// polling the shared inbox and database while other test classes run
@org.springframework.test.annotation.DirtiesContext
// slow tier: an SFTP server, a context of its own and a second application instance
@SlowTest
class SftpIntakeTest extends IngestorTestSupport {

    static final TestSftpServer SFTP = new TestSftpServer("acme", "s3cret-pw");

    @DynamicPropertySource
    static void sftpProperties(DynamicPropertyRegistry registry) {
        registry.add("ingestor.suppliers.ACME.sftp.host", () -> "127.0.0.1");
        registry.add("ingestor.suppliers.ACME.sftp.port", SFTP::port);
        registry.add("ingestor.suppliers.ACME.sftp.username", () -> "acme");
        registry.add("ingestor.suppliers.ACME.sftp.password", () -> "s3cret-pw");
        registry.add("ingestor.suppliers.ACME.sftp.known-hosts-file", () -> SFTP.knownHostsFile());
        registry.add("ingestor.suppliers.ACME.sftp.directory", () -> "outbox");
        registry.add("ingestor.suppliers.ACME.sftp.poll-interval", () -> "200ms");
        // SFTP times are whole seconds: 2 s means unchanged for at least one
        registry.add("ingestor.suppliers.ACME.sftp.min-age", () -> "2s");
        registry.add("ingestor.suppliers.ACME.sftp.backoff-multiplier", () -> "2");
        // every other file here is far smaller
        registry.add("ingestor.suppliers.ACME.max-file-size", () -> "4KB");
        // INITECH writes done files and has its files deleted after pickup
        registry.add("ingestor.suppliers.INITECH.sftp.host", () -> "127.0.0.1");
        registry.add("ingestor.suppliers.INITECH.sftp.port", SFTP::port);
        registry.add("ingestor.suppliers.INITECH.sftp.username", () -> "acme");
        registry.add("ingestor.suppliers.INITECH.sftp.password", () -> "s3cret-pw");
        registry.add("ingestor.suppliers.INITECH.sftp.known-hosts-file",
                () -> SFTP.knownHostsFile());
        registry.add("ingestor.suppliers.INITECH.sftp.directory", () -> "initech");
        registry.add("ingestor.suppliers.INITECH.sftp.poll-interval", () -> "200ms");
        registry.add("ingestor.suppliers.INITECH.sftp.after-pickup", () -> "delete");
        // $simple{...}: Camel's spelling of ${...} that Spring's own placeholders leave alone
        registry.add("ingestor.suppliers.INITECH.sftp.done-file-name", () -> "$simple{file:name}.done");
        registry.add("ingestor.suppliers.INITECH.file-drop.enabled", () -> "false");
        // STRICT checks the server's host key against a known_hosts file holding it; FORGED against one
        // holding another key, so its route never logs in
        registry.add("ingestor.suppliers.STRICT.sftp.host", () -> "127.0.0.1");
        registry.add("ingestor.suppliers.STRICT.sftp.port", SFTP::port);
        registry.add("ingestor.suppliers.STRICT.sftp.username", () -> "acme");
        registry.add("ingestor.suppliers.STRICT.sftp.password", () -> "s3cret-pw");
        registry.add("ingestor.suppliers.STRICT.sftp.directory", () -> "strict");
        registry.add("ingestor.suppliers.STRICT.sftp.poll-interval", () -> "200ms");
        registry.add("ingestor.suppliers.STRICT.sftp.min-age", () -> "1s");
        registry.add("ingestor.suppliers.STRICT.sftp.known-hosts-file",
                () -> SFTP.knownHostsFile());
        registry.add("ingestor.suppliers.STRICT.file-drop.enabled", () -> "false");
        registry.add("ingestor.suppliers.FORGED.sftp.host", () -> "127.0.0.1");
        registry.add("ingestor.suppliers.FORGED.sftp.port", SFTP::port);
        registry.add("ingestor.suppliers.FORGED.sftp.username", () -> "acme");
        registry.add("ingestor.suppliers.FORGED.sftp.password", () -> "s3cret-pw");
        registry.add("ingestor.suppliers.FORGED.sftp.directory", () -> "forged");
        registry.add("ingestor.suppliers.FORGED.sftp.poll-interval", () -> "200ms");
        registry.add("ingestor.suppliers.FORGED.sftp.known-hosts-file",
                () -> SFTP.knownHostsFile("forged", forgedLine()));
        registry.add("ingestor.suppliers.FORGED.file-drop.enabled", () -> "false");
        // GLOBEX's login is refused: its route stays DOWN
        registry.add("ingestor.suppliers.GLOBEX.sftp.host", () -> "127.0.0.1");
        registry.add("ingestor.suppliers.GLOBEX.sftp.port", SFTP::port);
        registry.add("ingestor.suppliers.GLOBEX.sftp.username", () -> "globex");
        registry.add("ingestor.suppliers.GLOBEX.sftp.password", () -> "wrong-pw-123");
        // about a refused login, not host keys: the explicit opt-out
        registry.add("ingestor.suppliers.GLOBEX.sftp.strict-host-key-checking", () -> "false");
        registry.add("ingestor.suppliers.GLOBEX.sftp.poll-interval", () -> "200ms");
        registry.add("ingestor.intake.max-files-per-poll", () -> String.valueOf(FILES_PER_POLL));
    }

    /**
     * Not the default, so that the consumers' limit is seen to come from the property; small, so that links that
     * counted against it would fill every poll.
     */
    private static final int FILES_PER_POLL = 5;

    private static final Path OUTBOX = SFTP.root().resolve("outbox");

    /** The line of a server with the same name and another key: what a man in the middle would present. */
    private static String forgedLine() {
        try {
            java.security.KeyPairGenerator generator = java.security.KeyPairGenerator.getInstance("EC");
            generator.initialize(256);
            return "[127.0.0.1]:" + SFTP.port() + " "
                    + org.apache.sshd.common.config.keys.PublicKeyEntry
                            .toString(generator.generateKeyPair().getPublic());
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    @BeforeEach
    void emptyRemote() throws Exception {
        SFTP.forgetFailures();
        Files.createDirectories(OUTBOX);
        deleteTree(OUTBOX.resolve(".done"));
        deleteTree(OUTBOX.resolve(".rejected"));
        for (Path file : filesIn(OUTBOX)) {
            Files.delete(file);
        }
    }

    private static void publish(String name, byte[] content) throws Exception {
        Path temp = Files.createTempFile(SFTP.root(), "upload", ".tmp");
        Files.write(temp, content);
        Files.move(temp, OUTBOX.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    /** The content key of {@code content} as supplier ACME's. */
    private static String keyOf(byte[] content) throws Exception {
        return keyOf("ACME", content);
    }

    /** The content key of {@code content} as {@code supplier}'s. */
    private static String keyOf(String supplier, byte[] content) throws Exception {
        return supplier + ":" + java.util.HexFormat.of()
                .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(content));
    }

    /** The content keys of the jobs made of files named {@code name}. */
    private java.util.List<String> jobKeys(String name) {
        return jdbc.queryForList("SELECT key FROM import_job WHERE file_name = ?", String.class, name);
    }

    private static byte[] advice(String id) {
        return ("source_id,sku,quantity,delivery_date\n" + id + ",SKU,1,2026-12-01\n").getBytes(StandardCharsets.UTF_8);
    }

    /** A poll takes at most ingestor.intake.max-files-per-poll entries, over SFTP as from the inbox. */
    @Test
    void everyPollIsBoundedByTheMaxFilesPerPoll() {
        for (String route : java.util.List.of("sftp-ACME", "sftp-INITECH", "file-drop-ACME")) {
            org.apache.camel.Endpoint endpoint = camelContext.getRoute(route).getEndpoint();
            assertThat(((org.apache.camel.component.file.GenericFileEndpoint<?>) endpoint).getMaxMessagesPerPoll())
                    .as("maxMessagesPerPoll of %s", route).isEqualTo(FILES_PER_POLL);
        }
    }

    @Test
    void aPublishedFileIsPulledIngestedAndMovedToDone() throws Exception {
        publish("advice-1.csv", advice("S-1"));
        awaitJobs(1);
        assertThat(jdbc.queryForObject("SELECT source FROM import_job", String.class)).isEqualTo("sftp");
        assertThat(jdbc.queryForObject("SELECT file_name FROM import_job", String.class)).isEqualTo("advice-1.csv");
        // who submitted: the server and folder, the login but never the password
        assertThat(jdbc.queryForObject("SELECT submitted_by FROM import_job", String.class))
                .isEqualTo("sftp://acme@127.0.0.1:" + SFTP.port() + "/outbox");
        awaitFiles(OUTBOX.resolve(".done"), 1);
        assertThat(filesIn(OUTBOX)).isEmpty();
    }

    @Test
    void aFileWhoseDownloadFailedIsTakenAtALaterPollNotAfterItsClaimsLease() throws Exception {
        // the download fails after the file was claimed, a path on which Camel lets go of nothing: the claim must
        // not hold the file back for ingestor.intake.claim-lease (10 min)
        SFTP.failNextReadOf("download-fails-once.csv");
        publish("download-fails-once.csv", advice("D-1"));
        awaitJobs(1);
        assertThat(SFTP.events()).as("the download that failed").anyMatch(e -> e.kind().equals("read-failed"));
        assertThat(jdbc.queryForObject("SELECT file_name FROM import_job", String.class))
                .isEqualTo("download-fails-once.csv");
        awaitFiles(OUTBOX.resolve(".done"), 1);
    }

    @Test
    void bytesAlreadyDroppedAreADuplicateNotASecondJob() throws Exception {
        byte[] content = advice("S-2-" + UUID.randomUUID());
        drop("ACME", "dropped.csv", content);
        awaitJobs(1);
        publish("published.csv", content);
        awaitFiles(OUTBOX.resolve(".done"), 1);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> jdbc.queryForObject("SELECT duplicate_count FROM import_job", Integer.class) == 1);
        assertThat(jobCount()).isEqualTo(1);
        // the duplicate from SFTP leaves the first submitter, the drop folder
        assertThat(jdbc.queryForObject("SELECT submitted_by FROM import_job", String.class))
                .isEqualTo("drop:" + INBOX.resolve("ACME").toAbsolutePath());
    }

    @Test
    void aDoneFileSupplierIsWaitedForAndItsFilesAreDeleted() throws Exception {
        Path folder = Files.createDirectories(SFTP.root().resolve("initech"));
        Files.write(folder.resolve("batch.csv"), advice("D-1"));
        // on purpose: several polls pass, and the file must still wait for its done file
        Thread.sleep(1500);
        assertThat(jobCount()).as("taken before its done file").isZero();
        Files.write(folder.resolve("batch.csv.done"), new byte[0]);
        awaitJobs(1);
        assertThat(jdbc.queryForObject("SELECT supplier FROM import_job", String.class)).isEqualTo("INITECH");
        await().atMost(Duration.ofSeconds(10)).until(() -> filesIn(folder).isEmpty());
        assertThat(folder.resolve(".done")).doesNotExist();
    }

    @Test
    void withAKnownHostsFileOnlyTheServerWithTheKnownKeyIsUsed() throws Exception {
        Path folder = Files.createDirectories(SFTP.root().resolve("strict"));
        Path forged = Files.createDirectories(SFTP.root().resolve("forged"));
        Files.write(folder.resolve("checked.csv"), advice("K-1"));
        Files.write(forged.resolve("not-taken.csv"), advice("K-2"));
        // STRICT knows the key: takes the file; FORGED knows another key for the same address: refuses to log in
        awaitJobs(1);
        assertThat(jdbc.queryForObject("SELECT supplier FROM import_job", String.class)).isEqualTo("STRICT");
        await().atMost(Duration.ofSeconds(15))
                .until(() -> health().path("consumer:sftp-FORGED").asString().equals("DOWN"));
        assertThat(health().path("consumer:sftp-STRICT").asString()).isNotEqualTo("DOWN");
        assertThat(forged.resolve("not-taken.csv")).exists();
        assertThat(jobCount()).isEqualTo(1);
    }

    @Test
    void aFileStillBeingWrittenIsNotTakenHalfWritten() throws Exception {
        Path file = OUTBOX.resolve("slow.csv");
        StringBuilder content = new StringBuilder("source_id,sku,quantity,delivery_date\n");
        Files.writeString(file, content);
        for (int i = 0; i < 16; i++) {
            String line = "W-" + i + ",SKU,1,2026-12-01\n";
            content.append(line);
            Files.writeString(file, line, java.nio.file.StandardOpenOption.APPEND);
            Thread.sleep(150); // on purpose: a supplier writing slowly
        }
        awaitJobs(1);
        assertThat(jdbc.queryForObject("SELECT size FROM import_job", Long.class)).isEqualTo(content.length());
    }

    @Test
    void aRefusedLoginIsLoggedWithoutThePasswordAndTheRouteIsDown() throws Exception {
        try (CapturedLogs logs = CapturedLogs.of("dev.ingestor.sftp")) {
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> health().path("consumer:sftp-GLOBEX").asString().equals("DOWN"));
            await().atMost(Duration.ofSeconds(15)).until(
                    () -> logs.events().stream().anyMatch(e -> e.getFormattedMessage().contains("supplier=GLOBEX")
                            && e.getFormattedMessage().contains("Auth fail")));
            assertThat(logs.events())
                    .allSatisfy(e -> assertThat(e.getFormattedMessage()).doesNotContain("wrong-pw-123"));
            assertThat(get("/actuator/health", ADMIN_KEY).body()).doesNotContain("wrong-pw-123");
        }
    }

    @Test
    void aServerThatGoesAwayAndComesBackIsPolledAgainWithoutARestart() throws Exception {
        CapturedLogs logs = CapturedLogs.of("dev.ingestor.sftp");
        try {
            SFTP.stop();
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> logs.events().stream().anyMatch(e -> e.getFormattedMessage().contains("supplier=ACME")
                            && e.getFormattedMessage().contains("cannot be polled")));
            assertThat(health().path("consumer:sftp-ACME").asString()).isEqualTo("DOWN");
            long failures = logs.events().stream().filter(e -> e.getFormattedMessage().contains("supplier=ACME"))
                    .count();
            Thread.sleep(2000); // on purpose: the window in which failed polls are counted
            // back-off: with a 200 ms poll and multiplier 2, about one failed poll (and line) per 600 ms, not 10
            long more = logs.events().stream().filter(e -> e.getFormattedMessage().contains("supplier=ACME")).count()
                    - failures;
            assertThat(more).isLessThanOrEqualTo(5);
        } finally {
            SFTP.start();
            logs.close();
        }
        publish("after-outage.csv", advice("S-3"));
        awaitJobs(1);
        await().atMost(Duration.ofSeconds(20)).until(() -> health().path("consumer:sftp-ACME").isMissingNode()
                || health().path("consumer:sftp-ACME").asString().equals("UP"));
    }

    /**
     * A poll whose listing of the remote folder fails (entries vanished under it) is one failed poll: the polls
     * after it list the folder again and take a file published afterwards.
     */
    @Test
    void aListingThatFailsOnceLeavesTheNextPollsWorking() throws Exception {
        // ACME's polls work first: the route may have started before its folder existed, and be in back-off
        publish("before-failed-listing.csv", advice("L-0"));
        awaitJobs(1);
        awaitFiles(OUTBOX.resolve(".done"), 1);
        try (CapturedLogs logs = CapturedLogs.of("dev.ingestor.sftp")) {
            SFTP.failNextListingOf("outbox");
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> logs.messages().stream().anyMatch(m -> m.contains("supplier=ACME")
                            && m.contains("cannot be polled") && m.contains("Cannot list directory")));
            publish("after-failed-listing.csv", advice("L-1"));
            awaitJobs(2);
            awaitFiles(OUTBOX.resolve(".done"), 2);
            await().atMost(Duration.ofSeconds(10)).until(() -> logs.messages().stream()
                    .anyMatch(m -> m.contains("supplier=ACME") && m.contains("answers again")));
            assertThat(logs.messages()).filteredOn(m -> m.contains("supplier=ACME") && m.contains("cannot be polled"))
                    .as("failed polls after the one failed listing").hasSize(1);
        }
    }

    @Test
    void twoInstancesPollingOneFolderTakeEachFileOnce() throws Exception {
        try (ConfigurableApplicationContext second = new SpringApplicationBuilder(IngestorApplication.class).run(
                "--server.port=0",
                "--spring.datasource.url=" + TestPostgres.jdbcUrl("ingestor"),
                "--ingestor.instance-id=second",
                "--ingestor.inbox-dir=" + WORK.resolve("inbox-second"),
                "--ingestor.data-dir=" + WORK.resolve("data-second"),
                "--ingestor.raw-dir=" + DATA.resolve("raw"),
                "--ingestor.intake.fsync=false",
                "--ingestor.pipeline.enabled=false",
                "--ingestor.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
                "--ingestor.suppliers.GLOBEX.file-drop.enabled=false",
                "--ingestor.suppliers.ACME.sftp.host=127.0.0.1",
                "--ingestor.suppliers.ACME.sftp.port=" + SFTP.port(),
                "--ingestor.suppliers.ACME.sftp.username=acme",
                "--ingestor.suppliers.ACME.sftp.password=s3cret-pw",
                "--ingestor.suppliers.ACME.sftp.known-hosts-file=" + SFTP.knownHostsFile(),
                "--ingestor.suppliers.ACME.sftp.directory=outbox",
                "--ingestor.suppliers.ACME.sftp.poll-interval=100ms",
                "--ingestor.suppliers.ACME.sftp.min-age=2s")) {
            for (int i = 0; i < 20; i++) {
                // ten contents, each published twice under two names
                publish("two-" + i + ".csv", advice("T-" + (i % 10)));
            }
            awaitFiles(OUTBOX.resolve(".done"), 20);
            await().atMost(Duration.ofSeconds(20)).until(() -> jdbc.queryForObject(
                    "SELECT coalesce(sum(1 + duplicate_count), 0) FROM import_job", Long.class) == 20);
            assertThat(jobCount()).isEqualTo(10);
            // every arrival counted exactly once: a file taken by both instances would count twice (on purpose,
            // both instances poll several more times before the count is read again)
            Thread.sleep(1000);
            assertThat(jdbc.queryForObject("SELECT sum(1 + duplicate_count) FROM import_job", Long.class))
                    .isEqualTo(20);
        }
    }

    /** The refusal lines of route sftp-ACME, for links. */
    private static List<String> linkLines(CapturedLogs logs) {
        return logs.messages().stream().filter(m -> m.startsWith("intake refused") && m.contains("route=sftp-ACME")
                && m.contains(RegularRemoteFilesOnly.LINKED_FILE)).toList();
    }

    @Test
    void aSymbolicLinkOnTheServerIsNotTakenAndReportedOnce() throws Exception {
        Path secret = Files.createDirectories(SFTP.root().resolve("private")).resolve("secret.csv");
        Files.writeString(secret, "source_id,sku,quantity,delivery_date\nTOP-SECRET,SKU,1,2026-12-01\n");
        // listening before the link exists: the first poll that sees it reports it
        CapturedLogs logs = CapturedLogs.of("dev.ingestor.intake");
        Path link = Files.createSymbolicLink(OUTBOX.resolve("leak.csv"), secret);
        try (logs) {
            publish("real.csv", advice("R-1"));
            awaitFiles(OUTBOX.resolve(".done"), 1);
            // on purpose: more polls pass, and the link must be neither taken nor reported again
            Thread.sleep(1500);
            assertThat(jdbc.queryForList("SELECT file_name FROM import_job", String.class)).containsExactly("real.csv");
            assertThat(link).isSymbolicLink();
            assertThat(secret).exists();
            assertThat(linkLines(logs)).singleElement().asString().contains("entries=1 ")
                    .contains("example=\"leak.csv\"");
            assertThat(logs.count("leak.csv")).isEqualTo(1);
        } finally {
            Files.deleteIfExists(link);
        }
    }

    /**
     * 300 links and one real file in the remote folder, with a limit of 5 files per poll: the links are filtered
     * while the folder is listed, so they never fill a poll and the real file is taken; their refusal is one line
     * with the count 300, which the polls after it (same links) do not repeat. The route is suspended while the
     * links are made, so that its first poll sees all 300.
     */
    @Test
    void threeHundredLinksOnTheServerAreOneLineAndStarveNoFile() throws Exception {
        Path secret = Files.createDirectories(SFTP.root().resolve("private")).resolve("secret.csv");
        Files.writeString(secret, "source_id,sku,quantity,delivery_date\nTOP-SECRET,SKU,1,2026-12-01\n");
        CapturedLogs logs = CapturedLogs.of("dev.ingestor.intake");
        List<Path> links = new ArrayList<>();
        // a poll under way when the route was suspended ends before the links are made
        suspendPolling("sftp-ACME");
        try (logs) {
            publish("real.csv", advice("M-1"));
            for (int i = 0; i < 300; i++) {
                links.add(Files.createSymbolicLink(OUTBOX.resolve("many-" + i + ".csv"), secret));
            }
            camelContext.getRouteController().resumeRoute("sftp-ACME");
            awaitFiles(OUTBOX.resolve(".done"), 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> !linkLines(logs).isEmpty());
            // on purpose: several more polls (200 ms apart) see the same 300 links, and none of them may log again
            Thread.sleep(1500);
            assertThat(jdbc.queryForList("SELECT file_name FROM import_job", String.class)).containsExactly("real.csv");
            assertThat(linkLines(logs)).singleElement().asString().contains("entries=300 ")
                    .containsPattern("example=\"many-[0-9]+\\.csv\"");
            assertThat(logs.count("many-")).as("lines naming one of the links").isEqualTo(1);
            assertThat(logs.messages()).noneMatch(m -> m.contains("TOP-SECRET"));
        } finally {
            // removed while no poll lists the folder: entries that vanish under a listing fail that poll
            suspendPolling("sftp-ACME");
            for (Path link : links) {
                Files.deleteIfExists(link);
            }
            camelContext.getRouteController().resumeRoute("sftp-ACME");
        }
    }

    /**
     * JSch reads {@code *}, {@code ?} and {@code \} in every remote path as a pattern. INITECH has its files deleted
     * after pickup, where deleting {@code price*.csv} would also delete {@code price-1.csv}: each file so named is
     * refused while the folder is listed, left on the server as it was (its done file too) and reported once, and
     * {@code price-1.csv} beside it is taken once, as itself. The route is suspended while the files are written, so
     * that its first poll sees them all.
     */
    @Test
    void aRemoteFileNamedLikeAPatternIsLeftUntouchedAndDeletesNoOtherFile() throws Exception {
        Path folder = Files.createDirectories(SFTP.root().resolve("initech"));
        java.util.Map<String, byte[]> patterned = new java.util.LinkedHashMap<>();
        patterned.put("price*.csv", advice("PAT-STAR"));
        patterned.put("why?.csv", advice("PAT-QUESTION"));
        patterned.put("inv\\2026.csv", advice("PAT-BACKSLASH"));
        byte[] price = advice("PRICE-1");
        java.util.Map<Path, java.nio.file.attribute.FileTime> written = new java.util.HashMap<>();
        CapturedLogs logs = CapturedLogs.of("dev.ingestor.intake");
        suspendPolling("sftp-INITECH");
        try (logs) {
            for (var file : patterned.entrySet()) {
                Path path = Files.write(folder.resolve(file.getKey()), file.getValue());
                Path done = Files.write(folder.resolve(file.getKey() + ".done"), new byte[0]);
                written.put(path, Files.getLastModifiedTime(path));
                written.put(done, Files.getLastModifiedTime(done));
            }
            Files.write(folder.resolve("price-1.csv"), price);
            Files.write(folder.resolve("price-1.csv.done"), new byte[0]);
            camelContext.getRouteController().resumeRoute("sftp-INITECH");
            awaitJobs(1);
            await().atMost(Duration.ofSeconds(10)).until(() -> !Files.exists(folder.resolve("price-1.csv"))
                    && !Files.exists(folder.resolve("price-1.csv.done")));
            // on purpose: more polls pass, and none may take, touch or report the patterned files again
            Thread.sleep(1500);

            // price-1.csv was read whole before anything deleted it, and taken once
            assertThat(jdbc.queryForList("SELECT key FROM import_job", String.class))
                    .containsExactly(keyOf("INITECH", price));
            assertThat(jdbc.queryForObject("SELECT file_name FROM import_job", String.class)).isEqualTo("price-1.csv");
            assertThat(jdbc.queryForObject("SELECT duplicate_count FROM import_job", Integer.class)).isZero();
            assertThat(jdbc.queryForObject("SELECT count(*) FROM intake_failure", Long.class)).isZero();
            for (var file : patterned.entrySet()) {
                Path path = folder.resolve(file.getKey());
                assertThat(path).as(file.getKey()).hasBinaryContent(file.getValue());
                assertThat(folder.resolve(file.getKey() + ".done")).as(file.getKey() + ".done").exists();
                assertThat(SFTP.bytesRead(file.getKey())).as("bytes downloaded of " + file.getKey()).isZero();
                String reason = RegularRemoteFilesOnly.patternName(file.getKey());
                assertThat(logs.messages()).as("refusals of " + file.getKey()).filteredOn(
                        m -> m.startsWith("intake refused") && m.contains("route=sftp-INITECH") && m.contains(reason))
                        .singleElement().asString().contains("entries=2 folder=\"initech\" ")
                        .contains("example=\"" + file.getKey());
            }
            written.forEach(
                    (path, time) -> assertThat(uncheckedModified(path)).as("%s modified", path).isEqualTo(time));
            assertThat(RegularRemoteFilesOnly.patternName("price*.csv")).contains("holds *,")
                    .contains("left where it is for the supplier to rename");
        } finally {
            // removed while no poll lists the folder: entries that vanish under a listing fail that poll
            suspendPolling("sftp-INITECH");
            for (Path path : written.keySet()) {
                Files.deleteIfExists(path);
            }
            camelContext.getRouteController().resumeRoute("sftp-INITECH");
        }
    }

    private static java.nio.file.attribute.FileTime uncheckedModified(Path path) {
        try {
            return Files.getLastModifiedTime(path);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aRemoteFileOverTheLimitIsRejectedOnceNamingTheProperty() throws Exception {
        try (CapturedLogs logs = CapturedLogs.of("dev.ingestor.intake")) {
            publish("huge.csv", advice("H-" + "x".repeat(8000)));
            awaitFiles(OUTBOX.resolve(".rejected"), 1);
            // on purpose: more polls pass, and the rejection must not be logged again
            Thread.sleep(1000);
            assertThat(jobCount()).isZero();
            assertThat(filesIn(OUTBOX)).isEmpty();
            assertThat(logs.events()).filteredOn(e -> e.getFormattedMessage().contains("huge.csv")).singleElement()
                    .satisfies(
                            e -> assertThat(e.getFormattedMessage()).contains("ingestor.suppliers.ACME.max-file-size")
                                    .contains("4096 bytes"));
            // on record once, naming the remote file where the route moved it
            String moved = filesIn(OUTBOX.resolve(".rejected")).get(0).getFileName().toString();
            assertThat(jdbc.queryForList("SELECT * FROM intake_failure")).singleElement().satisfies(row -> {
                assertThat(row).containsEntry("supplier", "ACME").containsEntry("source", "sftp")
                        .containsEntry("file_name", "huge.csv").containsEntry("outcome", "rejected");
                assertThat((String) row.get("reason")).contains("ingestor.suppliers.ACME.max-file-size");
                assertThat((String) row.get("location")).startsWith("sftp://127.0.0.1:" + SFTP.port() + "/")
                        .endsWith("/.rejected/" + moved);
            });
        }
    }

    /** The listing gives the size: a file over the limit is rejected without its bytes being downloaded. */
    @Test
    void aRemoteFileOverTheLimitIsRejectedWithoutBeingDownloaded() throws Exception {
        publish("giant.csv", advice("G-" + "x".repeat(2_000_000)));
        awaitFiles(OUTBOX.resolve(".rejected"), 1);
        assertThat(SFTP.bytesRead("giant.csv")).as("bytes downloaded of a 2 MB file over a 4 KB limit")
                .isLessThan(256 * 1024);
    }

    /**
     * A supplier that uploads a file again while it is downloaded: what was read is neither the old file nor the new
     * one. No job is made of it; the file stays and its new content is taken at a later poll.
     */
    @Test
    void aRemoteFileWrittenAgainWhileItIsDownloadedIsNotTakenHalfOldHalfNew() throws Exception {
        byte[] first = advice("OLD-" + "o".repeat(3000));
        byte[] second = advice("NEW-" + "n".repeat(3300));
        SFTP.rewriteAfterFirstRead("rewritten.csv", second);
        publish("rewritten.csv", first);
        awaitFiles(OUTBOX.resolve(".done"), 1);
        await().atMost(Duration.ofSeconds(30)).until(() -> jobCount() >= 1);
        assertThat(jobKeys("rewritten.csv")).as("jobs made of the file: only of its content as uploaded again")
                .containsExactly(keyOf(second));
    }

    /**
     * A file listed while it was still uploaded: the read lock waits for it to stop changing, and the download is
     * judged against the file as it then is, not against the older listing. Taken at once, not refused as changed.
     */
    @Test
    void aFileListedWhileItWasStillUploadedIsTakenOnceItIsComplete() throws Exception {
        byte[] whole = advice("GROWN-" + "g".repeat(3000));
        byte[] part = java.util.Arrays.copyOf(whole, 1000);
        try (CapturedLogs logs = CapturedLogs.of("dev.ingestor.intake")) {
            Files.write(OUTBOX.resolve("grown.csv"), part);
            Thread.sleep(1200); // on purpose: the poll lists the part, and the rest lands in a later second
            Files.write(OUTBOX.resolve("grown.csv"), whole);
            awaitFiles(OUTBOX.resolve(".done"), 1);
            assertThat(jobKeys("grown.csv")).containsExactly(keyOf(whole));
            assertThat(logs.messages()).noneMatch(m -> m.contains("changed while it was downloaded"));
        }
    }

    /** A download that breaks half-way is tried again from the start, the file opened anew: all of it is taken. */
    @Test
    void aDownloadThatBreaksHalfWayIsDownloadedAgainWhole() throws Exception {
        byte[] content = advice("BROKEN-" + "b".repeat(3000));
        SFTP.breakNextDownloadOf("broken.csv");
        try (CapturedLogs logs = CapturedLogs.of("dev.ingestor.intake")) {
            publish("broken.csv", content);
            awaitFiles(OUTBOX.resolve(".done"), 1);
            assertThat(jobKeys("broken.csv")).containsExactly(keyOf(content));
            assertThat(logs.messages()).noneMatch(m -> m.contains("changed while it was downloaded"));
        }
        assertThat(SFTP.bytesRead("broken.csv")).as("read twice: the broken download and the whole one")
                .isGreaterThan(content.length);
    }

    /**
     * A server whose clock runs an hour behind ours: the file it is still receiving has a time of change an hour in
     * the past at every look. It is taken only once its size and time of change have stayed the same for min-age by
     * this instance's clock, and then once, whole.
     */
    @Test
    void aFileStillGrowingOnAServerWhoseClockIsBehindIsTakenOnceWholeAfterItSettles() throws Exception {
        Path file = OUTBOX.resolve("behind.csv");
        StringBuilder content = new StringBuilder("source_id,sku,quantity,delivery_date\n");
        Files.writeString(file, content);
        behind(file);
        // on purpose: the upload goes on for longer than min-age (2 s), a line every 300 ms
        for (int i = 0; i < 14; i++) {
            Thread.sleep(300);
            String line = "B-" + i + ",SKU,1,2026-12-01\n";
            content.append(line);
            try {
                Files.writeString(file, line, java.nio.file.StandardOpenOption.APPEND);
                behind(file);
            } catch (java.nio.file.NoSuchFileException e) {
                org.assertj.core.api.Assertions.fail("taken (moved from the folder) while still growing, after %d lines"
                        + " of 14; jobs of it: %s", i, jobKeys("behind.csv"));
            }
            assertThat(jobKeys("behind.csv")).as("taken while still growing, after %d lines", i + 1).isEmpty();
        }
        awaitJobs(1);
        byte[] whole = content.toString().getBytes(StandardCharsets.UTF_8);
        assertThat(jobKeys("behind.csv")).containsExactly(keyOf(whole));
        awaitFiles(OUTBOX.resolve(".done"), 1);
        assertThat(jobCount()).isEqualTo(1);
    }

    /**
     * A file listed settled that its supplier writes again in the moment before it is taken (the read lock's look at
     * it) is not taken as it then is, a state nobody saw settle: its wait starts again, and only the file as it last
     * settles is taken.
     */
    @Test
    void aFileWrittenAgainAfterItWasListedSettledIsTakenOnlyOnceItSettlesAgain() throws Exception {
        byte[] whole = advice("AGAIN-" + "a".repeat(3000));
        byte[] first = java.util.Arrays.copyOf(whole, 500);
        byte[] more = java.util.Arrays.copyOf(whole, 1500);
        SFTP.changeWhenLookedAtAlone("again.csv", more);
        publish("again.csv", first);
        await().atMost(Duration.ofSeconds(20)).until(() -> SFTP.count("acme", "changed-at-look") == 1);
        // on purpose: the rest comes a second later, within min-age (2 s) of the change; what was looked at is a
        // state taken at once only if its change goes unnoticed
        Thread.sleep(1000);
        Files.write(OUTBOX.resolve("again.csv"), whole);
        awaitFiles(OUTBOX.resolve(".done"), 1);
        assertThat(jobKeys("again.csv")).as("jobs made of the file: only of its content as it last settled")
                .containsExactly(keyOf(whole));
    }

    /** The time of change a server an hour behind ours would give {@code file} now. */
    private static void behind(Path file) throws Exception {
        Files.setLastModifiedTime(file,
                java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 3_600_000));
    }

    /**
     * A file whose time of change is an hour ahead of our clock (a server whose clock runs ahead) is taken once it has
     * stayed unchanged for min-age, and no poll waits on it: the file beside it is taken as promptly.
     */
    @Test
    void aFileChangedInTheFutureIsTakenOnceSettledWithoutHoldingThePoll() throws Exception {
        byte[] future = advice("F-1");
        byte[] beside = advice("F-2");
        long start = System.nanoTime();
        publish("future.csv", future);
        Files.setLastModifiedTime(OUTBOX.resolve("future.csv"),
                java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 3_600_000));
        publish("beside.csv", beside);
        // within min-age (2 s) and a few polls: a poll held on the future file would take neither for the read
        // lock's old timeout (60 s)
        await().atMost(Duration.ofSeconds(10)).until(() -> jobCount() == 2);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("both taken").isLessThan(Duration.ofSeconds(10));
        assertThat(jobKeys("future.csv")).containsExactly(keyOf(future));
        assertThat(jobKeys("beside.csv")).containsExactly(keyOf(beside));
        awaitFiles(OUTBOX.resolve(".done"), 2);
    }

    private tools.jackson.databind.JsonNode health() throws Exception {
        return JSON.readTree(get("/actuator/health", ADMIN_KEY).body()).path("components").path("camelHealth")
                .path("details");
    }
}
