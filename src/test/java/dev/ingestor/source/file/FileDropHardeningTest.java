package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.ingestor.support.CapturedLogs;
import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.SlowTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A hostile or careless supplier's inbox: symbolic links where files and folders should be, names as long as a
 * file system allows, files larger than the supplier may send.
 */
// its own suppliers make its own Spring context; closed afterwards, so that no second set of routes keeps
// polling the shared inbox and database while other test classes run
@org.springframework.test.annotation.DirtiesContext
// slow tier: a context of its own, many links and polls waited out
@SlowTest
class FileDropHardeningTest extends IngestorTestSupport {

    /** Outside the inbox: what a link would expose. */
    private static final Path SECRET = WORK.resolve("secret.txt");
    /** LINKED's supplier folder is a link to this folder. */
    private static final Path LINKED_TARGET = WORK.resolve("linked-target");

    @DynamicPropertySource
    static void hardeningProperties(DynamicPropertyRegistry registry) throws Exception {
        Files.writeString(SECRET, "root:x:0:0:TOP-SECRET:/root:/bin/bash\n");
        Files.createDirectories(LINKED_TARGET);
        Files.createDirectories(INBOX);
        Files.createSymbolicLink(INBOX.resolve("LINKED"), LINKED_TARGET);
        for (String supplier : List.of("SMALL", "LINKED")) {
            registry.add("ingestor.suppliers." + supplier + ".file-drop.min-age", () -> "400ms");
            registry.add("ingestor.suppliers." + supplier + ".file-drop.poll-interval", () -> "100ms");
        }
        registry.add("ingestor.suppliers.SMALL.max-file-size", () -> "1KB");
        // printf %s small-key | sha256sum
        registry.add("ingestor.suppliers.SMALL.api-key-sha256", () -> sha256Hex("small-key"));
    }

    private CapturedLogs logs;
    @org.springframework.beans.factory.annotation.Autowired
    LinkRefusals refusals;

    @BeforeEach
    void captureLogs() {
        logs = CapturedLogs.of("dev.ingestor.intake");
    }

    @AfterEach
    void releaseLogs() {
        logs.close();
    }

    /**
     * The lines this class's application logged: other cached contexts of the suite poll the same inbox and report
     * its links as well, each on the threads of its own Camel context, whose names begin with the context's own
     * "Camel (name)".
     */
    private java.util.stream.Stream<String> ownLines() {
        String probe = camelContext.getExecutorServiceManager().resolveThreadName("probe");
        String ownThreads = probe.substring(0, probe.indexOf(')') + 1);
        return logs.events().stream().filter(e -> e.getThreadName().startsWith(ownThreads))
                .map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage);
    }

    private long linesNaming(String text) {
        return ownLines().filter(m -> m.contains(text)).count();
    }

    /** The refusal lines about {@code folder} whose reason contains {@code reason}. */
    private List<String> refusalLines(Path folder, String reason) {
        return ownLines().filter(m -> m.startsWith("intake refused")
                && m.contains("folder=\"" + folder + "\"") && m.contains(reason)).toList();
    }

    /**
     * Reported with {@code entries} and {@code example}, and not again at later polls (polls run every 100 ms, stray
     * sweeps every 300 ms) while the count stays. A line with a smaller count may come first, from a poll that ran
     * while the test was still making the links.
     */
    private void reportedOnce(Path folder, String reason, int entries, String example) throws InterruptedException {
        String expected = "entries=" + entries + " ";
        await().atMost(Duration.ofSeconds(10))
                .until(() -> refusalLines(folder, reason).stream().anyMatch(m -> m.contains(expected)));
        assertThat(refusalLines(folder, reason)).filteredOn(m -> m.contains(expected)).singleElement().asString()
                .contains("example=\"" + example + "\"");
        long reported = refusalLines(folder, reason).size();
        // on purpose: ten more polls pass, and none of them may report the folder and reason again
        Thread.sleep(1000);
        assertThat(refusalLines(folder, reason)).as("lines about " + folder).hasSize((int) reported);
    }

    private static byte[] advice(String id) {
        return ("source_id,sku,quantity,delivery_date\n" + id + ",SKU,1,2026-12-01\n").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aSymbolicLinkInASupplierFolderIsNeverReadAndReportedOnce() throws Exception {
        Path link = Files.createSymbolicLink(INBOX.resolve("ACME/leak.csv"), SECRET);
        drop("ACME", "real.csv", advice("L-1"));
        awaitJobs(1);
        // on purpose: more polls pass after the real file was taken, and none of them may read the link
        Thread.sleep(1500);

        assertThat(jobCount()).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT file_name FROM import_job", String.class)).isEqualTo("real.csv");
        assertThat(jdbc.queryForList("SELECT coalesce(error, '') FROM import_job", String.class))
                .noneMatch(error -> error.contains("TOP-SECRET"));
        assertThat(link).isSymbolicLink();
        assertThat(SECRET).hasContent("root:x:0:0:TOP-SECRET:/root:/bin/bash");
        reportedOnce(INBOX.resolve("ACME"), RegularFilesOnly.LINKED_FILE, 1, "leak.csv");
        assertThat(logs.events()).noneMatch(e -> e.getFormattedMessage().contains("TOP-SECRET"));
    }

    /**
     * Names Camel cannot take a file by: a backslash (read as a folder separator, the file was taken and failed at
     * every poll, a row and an empty folder each time) and bytes that are no UTF-8 (listed, never found). Each is
     * left in place and reported once; no poll takes it, records it or makes a folder for it.
     */
    @Test
    void aFileNameCamelCannotTakeAFileByIsLeftInPlaceAndReportedOnce() throws Exception {
        Path backslash = drop("ACME", "north\\south.csv", advice("B-1"));
        // the name's bytes as a Latin-1 system writes "café.csv": 0xE9 is no UTF-8 (made by the shell: Java writes
        // every name it is given in UTF-8)
        Path folder = INBOX.resolve("ACME");
        new ProcessBuilder("sh", "-c", "echo 'source_id,sku,quantity,delivery_date' > \"$0/$(printf 'caf\\351.csv')\"",
                folder.toString()).inheritIO().start().waitFor();
        drop("ACME", "fine.csv", advice("F-1"));
        awaitJobs(1);

        reportedOnce(folder, RegularFilesOnly.BACKSLASH_NAME, 1, "north\\south.csv");
        assertThat(refusalLines(folder, RegularFilesOnly.UNDECODABLE_NAME)).isNotEmpty();
        assertThat(backslash).exists();
        assertThat(jdbc.queryForList("SELECT file_name FROM import_job", String.class)).containsExactly("fine.csv");
        assertThat(jdbc.queryForObject("SELECT count(*) FROM intake_failure", Long.class)).isZero();
        try (var outcomes = Files.list(folder)) {
            assertThat(outcomes.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith(".rejected")
                    && Files.isDirectory(folder.resolve(n).resolve("north")));
        }
    }

    /**
     * 300 links in one supplier folder: one line with their count, not 300 lines, and the polls after it, which
     * see the same links, log nothing new. The route is suspended while the links are made, so that its first poll
     * sees all 300.
     */
    @Test
    void threeHundredLinksInOneFolderAreOneLineWithTheirCount() throws Exception {
        Path folder = INBOX.resolve("ACME");
        List<Path> links = new java.util.ArrayList<>();
        // a poll under way when the route was suspended ends before the links are made
        suspendPolling("file-drop-ACME");
        try {
            for (int i = 0; i < 300; i++) {
                links.add(Files.createSymbolicLink(folder.resolve("many-" + i + ".csv"), SECRET));
            }
            camelContext.getRouteController().resumeRoute("file-drop-ACME");
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> !refusalLines(folder, RegularFilesOnly.LINKED_FILE).isEmpty());
            // on purpose: ten more polls (100 ms apart) see the same 300 links, and none of them may log again
            Thread.sleep(1000);
            assertThat(refusalLines(folder, RegularFilesOnly.LINKED_FILE)).singleElement().asString()
                    .contains("entries=300 ").containsPattern("example=\"many-[0-9]+\\.csv\"")
                    .contains("route=file-drop-ACME");
            assertThat(linesNaming("many-")).as("lines naming one of the links").isEqualTo(1);
            assertThat(refusals.reported("file-drop-ACME", folder.toString(), RegularFilesOnly.LINKED_FILE))
                    .isEqualTo(300);
        } finally {
            camelContext.getRouteController().resumeRoute("file-drop-ACME");
            for (Path link : links) {
                Files.deleteIfExists(link);
            }
            // gone, and seen gone, so that a later test's link in this folder is a change to report
            await().atMost(Duration.ofSeconds(10)).until(
                    () -> refusals.reported("file-drop-ACME", folder.toString(), RegularFilesOnly.LINKED_FILE) == 0);
        }
    }

    @Test
    void aLinkedOutcomeFolderHasNothingMovedThroughIt() throws Exception {
        Path elsewhere = Files.createDirectories(WORK.resolve("elsewhere-" + UUID.randomUUID()));
        Path done = Files.createSymbolicLink(INBOX.resolve("ACME/.done"), elsewhere);
        try {
            drop("ACME", "waits.csv", advice("D-1"));
            // on purpose: past min-age and several polls, the file must still be waiting
            Thread.sleep(2000);
            assertThat(list(elsewhere)).isEmpty();
            assertThat(INBOX.resolve("ACME/waits.csv")).isRegularFile();
            reportedOnce(INBOX.resolve("ACME"), RegularFilesOnly.linkedOutcomeFolder(".done"), 1, "waits.csv");

            // a real folder again: the file is taken
            Files.delete(done);
            awaitFiles(INBOX.resolve("ACME/.done"), 1);
            assertThat(list(elsewhere)).isEmpty();
        } finally {
            if (Files.isSymbolicLink(done)) {
                Files.delete(done);
            }
        }
    }

    @Test
    void aLinkedSupplierFolderIsRefused() throws Exception {
        Files.write(LINKED_TARGET.resolve("through-link.csv"), advice("F-1"));
        drop("ACME", "real.csv", advice("F-2"));
        awaitJobs(1);
        // on purpose: more polls pass, and none of them may take the file behind the linked folder
        Thread.sleep(1500);
        assertThat(jdbc.queryForList("SELECT supplier FROM import_job", String.class)).containsExactly("ACME");
        assertThat(LINKED_TARGET.resolve("through-link.csv")).isRegularFile();
        assertThat(list(LINKED_TARGET)).hasSize(1);
        // the file behind the linked folder is counted and reported once (maybe before this test began listening)
        await().atMost(Duration.ofSeconds(10)).until(() -> refusals.reported("file-drop-LINKED",
                INBOX.resolve("LINKED").toString(), RegularFilesOnly.LINKED_SUPPLIER_FOLDER) == 1);
        assertThat(refusalLines(INBOX.resolve("LINKED"), RegularFilesOnly.LINKED_SUPPLIER_FOLDER))
                .hasSizeLessThanOrEqualTo(1);
    }

    @Test
    void theStraySweeperFollowsNoLink() throws Exception {
        Path foreign = Files.createDirectories(WORK.resolve("foreign-" + UUID.randomUUID()));
        Path foreignFile = Files.write(foreign.resolve("theirs.csv"), advice("S-1"));
        Files.setLastModifiedTime(foreignFile,
                java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        Path elsewhere = Files.createDirectories(WORK.resolve("elsewhere-" + UUID.randomUUID()));
        Path linkedFolder = Files.createSymbolicLink(INBOX.resolve("NOBODY-LINK"), foreign);
        Path linkedFile = Files.createSymbolicLink(INBOX.resolve("root-link.csv"), SECRET);
        Path nobody = Files.createDirectories(INBOX.resolve("NOBODY"));
        Path stray = Files.write(nobody.resolve("stray.csv"), advice("S-2"));
        Files.setLastModifiedTime(stray,
                java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        Path rejected = Files.createSymbolicLink(nobody.resolve(".rejected"), elsewhere);
        try {
            // on purpose: several stray sweeps (300 ms apart) pass, and none may move anything through the link
            Thread.sleep(2000);
            assertThat(foreignFile).isRegularFile();
            assertThat(list(foreign)).hasSize(1);
            assertThat(linkedFile).isSymbolicLink();
            assertThat(INBOX.resolve(".rejected")).doesNotExist();
            assertThat(list(elsewhere)).isEmpty();
            assertThat(stray).isRegularFile();
            // both links at the inbox root on one line, the first seen as the example
            await().atMost(Duration.ofSeconds(10)).until(() -> refusals.reported(StrayFileSweeper.SWEEP,
                    INBOX.toString(), StrayFileSweeper.LINK_IN_INBOX) == 2);
            assertThat(refusalLines(INBOX, StrayFileSweeper.LINK_IN_INBOX)).last().asString().contains("entries=2 ")
                    .containsAnyOf("example=\"NOBODY-LINK\"", "example=\"root-link.csv\"");
            reportedOnce(nobody, StrayFileSweeper.LINKED_REJECTED, 1, "stray.csv");
            assertThat(refusalLines(INBOX, StrayFileSweeper.LINK_IN_INBOX)).as("no line since")
                    .hasSizeLessThanOrEqualTo(2);
        } finally {
            Files.deleteIfExists(linkedFolder);
            Files.deleteIfExists(linkedFile);
            Files.deleteIfExists(rejected);
            deleteTree(nobody);
            deleteTree(INBOX.resolve(".rejected"));
        }
    }

    @Test
    void namesOfUpTo255BytesAreTakenOnceAndMovedWithTheFullNameOnTheJob() throws Exception {
        List<String> names = List.of("a".repeat(232) + ".csv", "x".repeat(251) + ".csv",
                "ü".repeat(125) + ".csv", "€".repeat(83) + ".csv");
        for (int i = 0; i < names.size(); i++) {
            assertThat(names.get(i).getBytes(StandardCharsets.UTF_8).length).isBetween(236, 255);
            drop("ACME", names.get(i), advice("N-" + i));
        }
        awaitFiles(INBOX.resolve("ACME/.done"), names.size());
        // on purpose: later polls pass, and none may take a moved file again
        Thread.sleep(1000);
        assertThat(jobCount()).isEqualTo(names.size());
        assertThat(jdbc.queryForList("SELECT file_name FROM import_job", String.class))
                .containsExactlyInAnyOrderElementsOf(names);
        assertThat(jdbc.queryForObject("SELECT sum(duplicate_count) FROM import_job", Long.class)).isZero();
        assertThat(filesIn(INBOX.resolve("ACME"))).isEmpty();
    }

    @Test
    void aDropOverTheSuppliersLimitIsRejectedNamingTheProperty() throws Exception {
        drop("SMALL", "big.csv", advice("B-" + "x".repeat(2000)));
        drop("SMALL", "fits.csv", advice("B-2"));
        awaitFiles(INBOX.resolve("SMALL/.rejected"), 1);
        awaitFiles(INBOX.resolve("SMALL/.done"), 1);
        assertThat(jdbc.queryForList("SELECT file_name FROM import_job", String.class)).containsExactly("fits.csv");
        assertThat(filesIn(INBOX.resolve("SMALL/.rejected")).get(0).getFileName().toString()).endsWith("-big.csv");
        await().atMost(Duration.ofSeconds(5))
                .until(() -> logs.events().stream().anyMatch(e -> e.getFormattedMessage().contains("big.csv")
                        && e.getFormattedMessage().contains("ingestor.suppliers.SMALL.max-file-size")
                        && e.getFormattedMessage().contains("1024 bytes")));
    }

    @Test
    void anHttpPushOverTheSuppliersLimitIs413NamingTheProperty() throws Exception {
        // below the HTTP limit (1MB in these tests), above SMALL's own
        java.net.http.HttpResponse<String> answer = post("/api/v1/suppliers/SMALL/files", "small-key",
                "application/octet-stream", advice("H-" + "x".repeat(2000)), "X-File-Name", "pushed.csv");
        assertProblem(answer, 413, "ingestor.suppliers.SMALL.max-file-size");
        assertThat(answer.body()).contains("1024 bytes");
        assertThat(jobCount()).isZero();
        assertThat(keyCount()).isZero();
    }

    private static String sha256Hex(String text) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
