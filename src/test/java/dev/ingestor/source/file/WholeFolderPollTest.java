package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ingestor.support.CapturedLogs;
import org.apache.camel.CamelContext;
import org.apache.camel.Consumer;
import org.apache.camel.Endpoint;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whether a file-drop poll saw its whole folder, as Camel's file consumer lists it: a poll is cut only once as many
 * files as its limit were listed to be taken. Files the filter lets through that Camel then leaves (a done file, a file
 * whose done file has not come, a file still in progress from an earlier poll) do not make a poll look cut: a link
 * that is gone is then reported gone ({@link LinkRefusals}).
 */
class WholeFolderPollTest {

    private static final String GONE = "intake refuses no entry any more";

    @TempDir
    Path inbox;

    private final LinkRefusals refusals = new LinkRefusals();
    private final AtomicInteger polls = new AtomicInteger();
    private final AtomicInteger started = new AtomicInteger();
    private CapturedLogs logs;

    @BeforeEach
    void capture() {
        logs = CapturedLogs.of("dev.ingestor.intake");
    }

    @AfterEach
    void release() {
        logs.close();
    }

    /**
     * A route as the file-drop routes are, with a limit of 3 files per poll: the routes' filter, poll strategy,
     * scheduler and in-progress marks; {@code options} as the route's read lock and done file.
     */
    private CamelContext route(String options, SettledFiles settled, CountDownLatch finish) throws Exception {
        CamelContext camel = new DefaultCamelContext();
        camel.getRegistry().bind("filter", new RegularFilesOnly(refusals, settled));
        camel.getRegistry().bind("pollStrategy", new FileDropPollStrategy(refusals) {
            @Override
            public void commit(Consumer consumer, Endpoint endpoint, int polled) {
                super.commit(consumer, endpoint, polled);
                polls.incrementAndGet();
            }
        });
        camel.getRegistry().bind(FilePollsThroughErrors.NAME, new FilePollsThroughErrors());
        camel.getRegistry().bind(InProgressMarks.NAME, new InProgressMarks());
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("file:" + inbox + "?" + options + "&filter=#filter&pollStrategy=#pollStrategy"
                        + "&scheduler=#" + FilePollsThroughErrors.NAME + "&inProgressRepository=#"
                        + InProgressMarks.NAME
                        + "&maxMessagesPerPoll=3&initialDelay=0&delay=50&delete=true")
                        .routeId("file-drop-TEST")
                        .threads(4)
                        .process(exchange -> {
                            started.incrementAndGet();
                            finish.await();
                        });
            }
        });
        camel.start();
        return camel;
    }

    /** Waits for {@code n} more polls to end. */
    private void awaitPolls(int n) {
        int until = polls.get() + n;
        await().atMost(Duration.ofSeconds(10)).until(() -> polls.get() >= until);
    }

    /**
     * A done-file supplier whose three files wait for their done files: every poll lists them and takes none. A link
     * beside them is reported, and reported gone once it is removed.
     */
    @Test
    void filesWaitingForTheirDoneFilesDoNotCutThePoll() throws Exception {
        for (int i = 0; i < 3; i++) {
            Files.writeString(inbox.resolve("waiting-" + i + ".csv"), "a\n");
        }
        Path link = Files.createSymbolicLink(inbox.resolve("link.csv"), inbox.resolve("waiting-0.csv"));
        try (CamelContext camel = route("readLock=none&doneFileName=${file:name}.done", null, new CountDownLatch(0))) {
            await().atMost(Duration.ofSeconds(10)).until(() -> logs.count("intake refused entries=1") == 1);
            Files.delete(link);
            awaitPolls(5);
            assertThat(logs.count(GONE)).as("the link reported gone").isEqualTo(1);
        }
    }

    /**
     * Three files taken and still in progress (their exchanges wait) fill no later poll: the folder holds nothing else
     * to take, and a link removed from it is reported gone.
     */
    @Test
    void filesStillInProgressDoNotCutThePoll() throws Exception {
        CountDownLatch finish = new CountDownLatch(1);
        try (CamelContext camel = route("readLock=none", new SettledFiles(Duration.ofMillis(100)), finish)) {
            try {
                Path link = Files.createSymbolicLink(inbox.resolve("link.csv"), inbox.resolve("nowhere.csv"));
                await().atMost(Duration.ofSeconds(10)).until(() -> logs.count("intake refused entries=1") == 1);
                for (int i = 0; i < 3; i++) {
                    Files.writeString(inbox.resolve("taken-" + i + ".csv"), "a\n");
                }
                // settled (100 ms) and taken; their exchanges wait
                await().atMost(Duration.ofSeconds(10)).until(() -> started.get() == 3);
                Files.delete(link);
                awaitPolls(5);
                assertThat(logs.count(GONE)).as("the link reported gone").isEqualTo(1);
            } finally {
                finish.countDown();
            }
        }
    }

    /**
     * A poll whose listing gathered as many files as its limit was cut there, though the read lock then refused them
     * (claimed elsewhere, changed since listed) and it took none: taken for a whole one, it would forget the settling
     * files past the cut. A file already marked is not gathered again; each poll counts afresh.
     */
    @Test
    void aPollThatGatheredAsManyFilesAsItsLimitWasCut() throws Exception {
        InProgressMarks marks = new InProgressMarks();
        try (CamelContext camel = new DefaultCamelContext()) {
            camel.getRegistry().bind("marks", marks);
            camel.start();
            Endpoint endpoint = camel.getEndpoint(
                    "file:" + inbox + "?maxMessagesPerPoll=2&inProgressRepository=#marks");
            marks.pollStarts();
            assertThat(marks.add("/inbox/a.csv")).isTrue();
            assertThat(marks.add("/inbox/a.csv")).as("in progress: not gathered").isFalse();
            assertThat(PollingRoute.sawEverything(endpoint, 0)).isTrue();
            assertThat(marks.add("/inbox/b.csv")).isTrue();
            assertThat(PollingRoute.sawEverything(endpoint, 0)).as("cut at its limit of 2, none taken").isFalse();
            marks.pollEnds();
            marks.pollStarts();
            assertThat(PollingRoute.sawEverything(endpoint, 0)).as("a new poll counts afresh").isTrue();
        }
    }
}
