package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import dev.ingestor.intake.FileChangedSinceSettledException;
import dev.ingestor.intake.FileState;
import dev.ingestor.intake.IntakeHeaders;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.component.file.FileComponent;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.impl.DefaultCamelContext;
import org.apache.camel.support.DefaultExchange;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where an answered dropped file goes. The outcome folder is made here, before Camel moves the file: Camel's own
 * "missing, so make it" fails the move when a sibling consumer makes the folder in between, which left a file in
 * place to be taken again as a duplicate of itself (seen in CI with two consumers answering at once).
 */
class OutcomeMoveTest {

    @TempDir
    Path supplierFolder;

    private final CamelContext camel = new DefaultCamelContext();
    private final OutcomeMove move = new OutcomeMove(new LinkRefusals());

    @AfterEach
    void close() throws Exception {
        camel.close();
    }

    private Exchange answered(String name, String outcome) throws Exception {
        Path dropped = Files.writeString(supplierFolder.resolve(name), "source_id\n");
        GenericFile<File> file = new GenericFile<>();
        file.setFile(dropped.toFile());
        file.setFileNameOnly(name);
        file.setFileName(name);
        Exchange exchange = new DefaultExchange(camel);
        exchange.setProperty(FileComponent.FILE_EXCHANGE_FILE, file);
        exchange.setProperty(IntakeHeaders.OUTCOME, outcome);
        return exchange;
    }

    /** The server's view of a remote file, as its session's operations list it: {@code entry}, or nothing. */
    @SuppressWarnings("unchecked")
    private static org.apache.camel.component.file.GenericFileOperations<Object> server(SftpEntry entry) {
        return (org.apache.camel.component.file.GenericFileOperations<Object>) java.lang.reflect.Proxy.newProxyInstance(
                OutcomeMoveTest.class.getClassLoader(),
                new Class<?>[] {org.apache.camel.component.file.GenericFileOperations.class},
                (proxy, method, args) -> method.getName().equals("listFiles")
                        ? (entry == null ? new Object[0] : new Object[] {entry})
                        : null);
    }

    private record SftpEntry(long getFileLength, long getLastModified)
            implements
                org.apache.camel.component.file.remote.SftpRemoteFile<Object> {
        @Override
        public Object getRemoteFile() { return null; }
        @Override
        public String getFilename() { return "advice.csv"; }
        @Override
        public String getLongname() { return "advice.csv"; }
        @Override
        public boolean isDirectory() { return false; }
    }

    private Exchange remote(SftpEntry onTheServer) {
        GenericFile<Object> file = new GenericFile<>();
        file.setAbsoluteFilePath("outbox/advice.csv");
        file.setFileNameOnly("advice.csv");
        file.setFileName("advice.csv");
        Exchange exchange = new DefaultExchange(camel);
        exchange.setProperty(FileComponent.FILE_EXCHANGE_FILE, file);
        exchange.setProperty(IntakeHeaders.OUTCOME, "done");
        exchange.getMessage().setHeader(Exchange.FILE_LENGTH, 120L);
        exchange.getMessage().setHeader(Exchange.FILE_LAST_MODIFIED, 1_700_000_000_000L);
        exchange.setProperty(RemoteDownload.OPERATIONS, server(onTheServer));
        return exchange;
    }

    /** Appended to or written again on the server after it was read: left there, to be taken again as it is now. */
    @Test
    void aRemoteFileThatChangedSinceItWasListedIsNotMoved() throws Exception {
        assertThat(move.sftp(remote(new SftpEntry(120L, 1_700_000_000_000L)))).startsWith(".done/");
        for (SftpEntry changed : java.util.Arrays.asList(new SftpEntry(180L, 1_700_000_000_000L),
                new SftpEntry(120L, 1_700_000_002_000L), null)) {
            assertThatThrownBy(() -> move.sftp(remote(changed))).as("on the server: %s", changed)
                    .hasMessageContaining("changed after it was read");
        }
        // with a done file, Camel has removed the marker before the move: a file left there would never be taken
        Exchange withDoneFile = remote(new SftpEntry(180L, 1_700_000_000_000L));
        withDoneFile.getExchangeExtension().setFromEndpoint(
                camel.getEndpoint("file:" + supplierFolder + "?doneFileName=${file:name}.done"));
        assertThat(move.sftp(withDoneFile)).startsWith(".done/");
    }

    @Test
    void theOutcomeFolderIsMadeBeforeTheMoveByEveryOneOfManyAnswersAtOnce() throws Exception {
        int answers = 16;
        List<Exchange> exchanges = new ArrayList<>();
        for (int i = 0; i < answers; i++) {
            exchanges.add(answered("file-" + i + ".csv", "done"));
        }
        ExecutorService pool = Executors.newFixedThreadPool(answers);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<String>> planned = new ArrayList<>();
            for (Exchange exchange : exchanges) {
                planned.add(pool.submit(() -> {
                    start.await();
                    return move.fileDrop(exchange);
                }));
            }
            start.countDown();
            for (Future<String> plan : planned) {
                assertThat(plan.get()).startsWith(".done/");
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(supplierFolder.resolve(".done")).isDirectory();
        assertThat(Files.isSymbolicLink(supplierFolder.resolve(".done"))).isFalse();
    }

    @Test
    void aFailedFileGetsItsFolderToo() throws Exception {
        assertThat(move.fileDropFailed(answered("broken.csv", "failed"))).startsWith(".failed/");
        assertThat(supplierFolder.resolve(".failed")).isDirectory();
    }

    /**
     * A stop past the shutdown timeout interrupts an intake under way (its read, or its back-off) after the error
     * handler has stopped: nothing records the file as failed, so it stays in place for the next start, not in
     * .failed/ where no record names it.
     */
    @Test
    void aFileWhoseIntakeAStopCutShortStaysInPlace() throws Exception {
        Exchange interrupted = answered("cut-short.csv", null);
        interrupted.setException(new java.io.UncheckedIOException(new java.nio.channels.ClosedByInterruptException()));
        assertThatThrownBy(() -> move.fileDropFailed(interrupted)).hasMessageContaining("cut short by a stop");
        Exchange refused = answered("refused.csv", null);
        refused.setException(new java.util.concurrent.RejectedExecutionException());
        assertThatThrownBy(() -> move.fileDropFailed(refused)).hasMessageContaining("cut short by a stop");
        assertThat(supplierFolder.resolve(".failed")).doesNotExist();

        // recorded as failed by the error handler: it goes, as its record says, whatever the cause
        Exchange recorded = answered("recorded.csv", "failed");
        recorded.setException(new InterruptedException());
        assertThat(move.fileDropFailed(recorded)).startsWith(".failed/");
    }

    /**
     * A file written to after its listing found it settled was not read: it stays in place to settle again, not in
     * .failed/. Camel moves a failed file on a copy of its exchange that keeps the failure only as the caught
     * exception.
     */
    @Test
    void aFileThatChangedSinceItWasFoundSettledStaysInPlace() throws Exception {
        Exchange caught = answered("late.csv", null);
        FileState now = FileState.now(supplierFolder.resolve("late.csv"));
        caught.setProperty(Exchange.EXCEPTION_CAUGHT,
                new FileChangedSinceSettledException("late.csv", new FileState(3, 0, null), now));
        assertThatThrownBy(() -> move.fileDropFailed(caught))
                .hasMessageContaining("changed since it was found settled");
        assertThat(supplierFolder.resolve(".failed")).doesNotExist();
    }

    @Test
    void anOutcomeFolderThatIsALinkIsRefusedAndNothingIsMadeThroughIt(@TempDir Path elsewhere) throws Exception {
        Files.createSymbolicLink(supplierFolder.resolve(".duplicate"), elsewhere);
        Exchange exchange = answered("again.csv", "duplicate");
        assertThatThrownBy(() -> move.fileDrop(exchange)).hasMessageContaining("is a symbolic link");
        assertThat(Files.isSymbolicLink(supplierFolder.resolve(".duplicate"))).isTrue();
        try (var inside = Files.list(elsewhere)) {
            assertThat(inside).isEmpty();
        }
    }

    @Test
    void aPlainFileWhereTheOutcomeFolderShouldBeIsLeftAsItIsForCamelsMoveToFail() throws Exception {
        Files.writeString(supplierFolder.resolve(".rejected"), "not a folder");
        assertThat(move.fileDrop(answered("bad.csv", "rejected"))).startsWith(".rejected/");
        assertThat(Files.isRegularFile(supplierFolder.resolve(".rejected"), LinkOption.NOFOLLOW_LINKS)).isTrue();
        assertThat(supplierFolder.resolve(".rejected")).hasContent("not a folder");
    }

    /**
     * A dropped file written again or replaced since intake read it is not moved to .done/: what is there now was
     * never read, and is taken again as it is.
     */
    @Test
    void aFileThatChangedAfterItWasReadStaysInPlace() throws Exception {
        Exchange unchanged = answered("same.csv", "done");
        unchanged.setProperty(IntakeHeaders.READ_AS, FileState.now(supplierFolder.resolve("same.csv")));
        assertThat(move.fileDrop(unchanged)).startsWith(".done/");

        Exchange changed = answered("changed.csv", "done");
        Path file = supplierFolder.resolve("changed.csv");
        changed.setProperty(IntakeHeaders.READ_AS, FileState.now(file));
        Files.writeString(file, "source_id\nA-1\n"); // the supplier's next version
        assertThatThrownBy(() -> move.fileDrop(changed)).hasMessageContaining("changed after it was read");
        // a failed intake goes to .failed/ all the same, where its record says it is
        changed.setProperty(IntakeHeaders.OUTCOME, "failed");
        assertThat(move.fileDropFailed(changed)).startsWith(".failed/");

        // a supplier with a done file: its marker said the file is complete, and Camel removes it before the move
        Exchange marked = answered("marked.csv", "done");
        Path markedFile = supplierFolder.resolve("marked.csv");
        marked.setProperty(IntakeHeaders.READ_AS, FileState.now(markedFile));
        marked.getExchangeExtension().setFromEndpoint(
                camel.getEndpoint("file:" + supplierFolder + "?doneFileName=${file:name}.done"));
        Files.writeString(markedFile, "source_id\nA-1\n");
        assertThat(move.fileDrop(marked)).startsWith(".done/");
    }
}
