package dev.ingestor.source.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;

import com.jcraft.jsch.ChannelSftp;
import dev.ingestor.config.IngestorProperties;
import dev.ingestor.config.InstanceId;
import dev.ingestor.intake.IntakeSettings;
import dev.ingestor.support.TestPostgres;
import dev.ingestor.support.TestSftpServer;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.builder.RouteBuilder;
import org.apache.camel.component.file.GenericFile;
import org.apache.camel.component.file.GenericFileFilter;
import org.apache.camel.component.file.GenericFileOperations;
import org.apache.camel.impl.DefaultCamelContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A file route under {@link FilePollsThroughErrors}: Camel's file consumer and a real folder; with the routes' marks
 * ({@link InProgressMarks}) and claims ({@link FileClaimRepository}, on a real PostgreSQL) where the marks a failed
 * poll leaves matter. The listing fails with an Error where a filter says, as a stack overflow or memory run out would;
 * a claim, where the claims say.
 */
class FilePollsThroughErrorsTest {

    private static JdbcTemplate jdbc;

    @BeforeAll
    static void database() {
        jdbc = TestPostgres.migrated("polls_through_errors");
    }

    @BeforeEach
    void noClaims() {
        jdbc.execute("TRUNCATE file_claim");
    }

    @TempDir
    Path inbox;

    private final AtomicInteger listed = new AtomicInteger();
    private final List<String> taken = new CopyOnWriteArrayList<>();
    /** When each of {@link #taken} was taken ({@link System#nanoTime}), for the claiming route. */
    private final List<Long> takenAt = new CopyOnWriteArrayList<>();
    /** The Errors the claims threw on purpose. */
    private final AtomicInteger errors = new AtomicInteger();

    /** Lists the inbox every 50 ms, the {@code n}th file listed failing with an Error where {@code fails} says. */
    private CamelContext route(IntPredicate fails) throws Exception {
        GenericFileFilter<Object> failing = file -> {
            if (fails.test(listed.incrementAndGet())) {
                throw new StackOverflowError("on purpose");
            }
            return true;
        };
        CamelContext camel = new DefaultCamelContext();
        camel.getRegistry().bind(FilePollsThroughErrors.NAME, new FilePollsThroughErrors());
        camel.getRegistry().bind("failing", failing);
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("file:" + inbox + "?scheduler=#" + FilePollsThroughErrors.NAME
                        + "&filter=#failing&initialDelay=0&delay=50&delete=true")
                        .routeId("drops")
                        .process(exchange -> taken.add(exchange.getMessage().getHeader("CamelFileName", String.class)));
            }
        });
        camel.start();
        return camel;
    }

    @Test
    void aFileRouteWhosePollFailedWithAnErrorTakesTheNextFile() throws Exception {
        Files.writeString(inbox.resolve("first.csv"), "a\n");
        try (CamelContext camel = route(n -> n == 1)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> listed.get() >= 1);
            Files.writeString(inbox.resolve("second.csv"), "b\n");
            await().atMost(Duration.ofSeconds(10)).until(() -> taken.size() == 2);
        }
        assertThat(taken).containsExactlyInAnyOrder("first.csv", "second.csv");
    }

    /** This run's claims, as the file-drop routes take them; the {@code failing}th claim fails with an Error. */
    private FileClaimRepository claims(int failing) {
        return claims(failing, false);
    }

    /**
     * This run's claims, as the file-drop routes take them (Camel's read lock claims with the exchange); the {@code
     * failing}th claim fails with an Error, before the claim is taken or, {@code afterTaking}, once it is, as in the
     * idempotent-changed read lock's wait. {@link #errors} counts the Errors thrown.
     */
    private FileClaimRepository claims(int failing, boolean afterTaking) {
        IngestorProperties properties = new IngestorProperties();
        properties.setInstanceId("polls");
        AtomicInteger claimed = new AtomicInteger();
        return new FileClaimRepository(jdbc, new InstanceId(properties), new IntakeSettings()) {
            @Override
            public boolean add(Exchange exchange, String key) {
                boolean fails = claimed.incrementAndGet() == failing;
                if (fails && !afterTaking) {
                    errors.incrementAndGet();
                    throw new StackOverflowError("on purpose");
                }
                boolean taken = super.add(exchange, key);
                if (fails) {
                    errors.incrementAndGet();
                    throw new StackOverflowError("on purpose, the claim taken");
                }
                return taken;
            }
        };
    }

    /**
     * A route as the file-drop routes are: claims as read lock, {@link InProgressMarks}, and its files handed
     * ({@link FileHandOff}) to two threads after they start (each start counted) where they wait for {@code finish}.
     */
    private CamelContext claimingRoute(GenericFileFilter<Object> filter, FileClaimRepository claims,
            CountDownLatch finish) throws Exception {
        return claimingRoute(filter, claims, finish, "");
    }

    /** {@link #claimingRoute(GenericFileFilter, FileClaimRepository, CountDownLatch)} with more endpoint options. */
    private CamelContext claimingRoute(GenericFileFilter<Object> filter, FileClaimRepository claims,
            CountDownLatch finish, String options) throws Exception {
        CamelContext camel = new DefaultCamelContext();
        camel.getRegistry().bind(FilePollsThroughErrors.NAME, new FilePollsThroughErrors());
        camel.getRegistry().bind(InProgressMarks.NAME, new InProgressMarks());
        camel.getRegistry().bind("claims", claims);
        camel.getRegistry().bind("filter", filter);
        camel.addRoutes(new RouteBuilder() {
            @Override
            public void configure() {
                from("file:" + inbox + "?scheduler=#" + FilePollsThroughErrors.NAME + "&inProgressRepository=#"
                        + InProgressMarks.NAME + "&readLock=idempotent&idempotentRepository=#claims&idempotent=false"
                        + "&readLockRemoveOnCommit=true&readLockRemoveOnRollback=true"
                        + "&filter=#filter&initialDelay=0&delay=50&delete=true" + options)
                        .routeId("drops")
                        .process(exchange -> {
                            takenAt.add(System.nanoTime());
                            taken.add(exchange.getMessage().getHeader("CamelFileName", String.class));
                        })
                        .process(new FileHandOff())
                        .threads(2)
                        .process(exchange -> finish.await(30, TimeUnit.SECONDS));
            }
        });
        camel.start();
        return camel;
    }

    @Test
    void theFilesAFailedListingHadMarkedAreTakenAtTheNextPoll() throws Exception {
        for (String name : List.of("a.csv", "b.csv", "c.csv")) {
            Files.writeString(inbox.resolve(name), name + "\n");
        }
        GenericFileFilter<Object> thirdFails = file -> {
            if (listed.incrementAndGet() == 3) {
                throw new StackOverflowError("on purpose");
            }
            return true;
        };
        try (CamelContext camel = claimingRoute(thirdFails, claims(0), new CountDownLatch(0))) {
            // the two files listed before the Error were marked, and never started
            await().atMost(Duration.ofSeconds(10)).until(() -> taken.size() == 3);
        }
        assertThat(taken).containsExactlyInAnyOrder("a.csv", "b.csv", "c.csv");
    }

    @Test
    void aFileUnderWayWhenThePollFailedIsNotTakenAgain() throws Exception {
        Files.writeString(inbox.resolve("a.csv"), "a\n");
        Files.writeString(inbox.resolve("b.csv"), "b\n");
        CountDownLatch finish = new CountDownLatch(1);
        // the first file listed is claimed and started; the second's claim fails with an Error
        try (CamelContext camel = claimingRoute(file -> true, claims(2), finish)) {
            try {
                await().atMost(Duration.ofSeconds(10)).until(() -> taken.size() == 2);
                // many more polls while both are under way: the first keeps its mark, so it is not listed again
                Thread.sleep(1000);
                assertThat(taken).as("each file started once").containsExactlyInAnyOrder("a.csv", "b.csv");
            } finally {
                finish.countDown();
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> !Files.exists(inbox.resolve("a.csv"))
                    && !Files.exists(inbox.resolve("b.csv")));
        }
        assertThat(taken).containsExactlyInAnyOrder("a.csv", "b.csv");
        assertThat(errors).as("the Error thrown").hasValue(1);
    }

    @Test
    void aFileClaimedJustBeforeTheErrorIsTakenAtTheNextPoll() throws Exception {
        Files.writeString(inbox.resolve("first.csv"), "first\n");
        // the second claim is taken, then the poll fails with an Error before its file is handed off
        FileClaimRepository claims = claims(2, true);
        try (CamelContext camel = claimingRoute(file -> true, claims, new CountDownLatch(0))) {
            // the route has handed a file off: from here on, one it did not hand off is not under way
            await().atMost(Duration.ofSeconds(10)).until(() -> !Files.exists(inbox.resolve("first.csv")));
            Files.writeString(inbox.resolve("a.csv"), "a\n");
            await().atMost(Duration.ofSeconds(10)).until(() -> !Files.exists(inbox.resolve("a.csv")));
        }
        assertThat(taken).containsExactlyInAnyOrder("first.csv", "a.csv");
        assertThat(errors).as("the Error thrown").hasValue(1);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM file_claim", Integer.class)).as("no claim left").isZero();
    }

    @Test
    void aFileListedWhileItsNameIsStillClaimedIsTakenAfterAFailedPoll() throws Exception {
        AtomicBoolean listing = new AtomicBoolean(true);
        Files.writeString(inbox.resolve("a.csv"), "a\n");
        // a finished file's claim is let go of 3 s after it is done; the second claim fails with an Error
        try (CamelContext camel = claimingRoute(file -> listing.get(), claims(2), new CountDownLatch(0),
                "&sortBy=file:name&readLockIdempotentReleaseAsync=true&readLockIdempotentReleaseDelay=3000")) {
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                    .until(() -> !Files.exists(inbox.resolve("a.csv")));
            long done = System.nanoTime();
            listing.set(false);
            // listed together, 0.csv first: its claim fails, while a.csv's name is still claimed by the first
            Files.writeString(inbox.resolve("0.csv"), "0\n");
            Files.writeString(inbox.resolve("a.csv"), "a again\n");
            listing.set(true);
            await().atMost(Duration.ofSeconds(10)).until(() -> !Files.exists(inbox.resolve("a.csv"))
                    && !Files.exists(inbox.resolve("0.csv")));
            // the second a.csv waited for the first's claim, let go of 3 s after its end: neither the failed poll
            // nor the refused takes let go of it
            assertThat((takenAt.get(taken.lastIndexOf("a.csv")) - done) / 1_000_000).as("ms from the first a.csv's"
                    + " end to the second's take").isGreaterThan(2500);
        }
        assertThat(taken).containsExactlyInAnyOrder("a.csv", "0.csv", "a.csv");
        assertThat(errors).as("the Error thrown").hasValue(1);
    }

    @Test
    void anSftpFileWhoseClaimTheErrorLeftTakenIsTakenAtTheNextPoll() throws Exception {
        TestSftpServer sftp = new TestSftpServer("acme", "polls-pw");
        ScheduledExecutorService releases = Executors.newSingleThreadScheduledExecutor();
        AtomicInteger locks = new AtomicInteger();
        // the second file's claim is taken, then the poll fails with an Error before its exchange starts
        SftpClaimReadLock lock = new SftpClaimReadLock(claims(0), releases, 0, false) {
            @Override
            public boolean acquireExclusiveReadLock(GenericFileOperations<ChannelSftp.LsEntry> operations,
                    GenericFile<ChannelSftp.LsEntry> file, Exchange exchange) throws Exception {
                boolean claimed = super.acquireExclusiveReadLock(operations, file, exchange);
                if (locks.incrementAndGet() == 2) {
                    throw new StackOverflowError("on purpose");
                }
                return claimed;
            }
        };
        try (CamelContext camel = new DefaultCamelContext()) {
            Path upload = Files.createDirectories(sftp.root().resolve("upload"));
            Files.writeString(upload.resolve("a.csv"), "a\n");
            Files.writeString(upload.resolve("b.csv"), "b\n");
            camel.getRegistry().bind(FilePollsThroughErrors.NAME, new FilePollsThroughErrors());
            camel.getRegistry().bind(InProgressMarks.NAME, new InProgressMarks());
            camel.getRegistry().bind("lock", lock);
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("sftp://127.0.0.1:" + sftp.port() + "/upload?username=acme&password=polls-pw"
                            + "&strictHostKeyChecking=no&useUserKnownHostsFile=false&stepwise=false&binary=true"
                            + "&scheduler=#" + FilePollsThroughErrors.NAME + "&inProgressRepository=#"
                            + InProgressMarks.NAME + "&exclusiveReadLockStrategy=#lock"
                            + "&initialDelay=0&delay=50&delete=true")
                            .routeId("pulls")
                            .process(exchange -> taken.add(exchange.getMessage().getHeader("CamelFileName",
                                    String.class)));
                }
            });
            camel.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> !Files.exists(upload.resolve("a.csv"))
                    && !Files.exists(upload.resolve("b.csv")));
        } finally {
            releases.shutdownNow();
            sftp.stop();
        }
        assertThat(taken).containsExactlyInAnyOrder("a.csv", "b.csv");
        assertThat(lock.openClaims()).isZero();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM file_claim", Integer.class)).as("no claim left").isZero();
    }

    @Test
    void aPollThatFailsWithAnErrorEveryTimeBacksOff() throws Exception {
        Files.writeString(inbox.resolve("poison.csv"), "a\n");
        long started = System.nanoTime();
        try (CamelContext camel = route(n -> true)) {
            Thread.sleep(3000);
        }
        // polls at 0, 1, 3, 7, 15, 31, 47 and 63 turns of 50 ms: 8 in 3.2 s, where every turn would be 64
        long turns = (System.nanoTime() - started) / 50_000_000;
        assertThat(listed.get()).isBetween(1, 8 + (int) (turns / 32));
    }

    @Test
    void marksSharedByTwoSchedulersAreRefused() {
        InProgressMarks shared = new InProgressMarks();
        FilePollsThroughErrors one = new FilePollsThroughErrors();
        shared.belongTo(one);
        shared.belongTo(one);
        assertThatThrownBy(() -> shared.belongTo(new FilePollsThroughErrors()))
                .hasMessageContaining("belong to another route's scheduler");
    }

    @Test
    void theRoutesDelaysAreTheSchedulers() throws Exception {
        try (CamelContext camel = new DefaultCamelContext()) {
            FilePollsThroughErrors scheduler = new FilePollsThroughErrors();
            camel.getRegistry().bind(FilePollsThroughErrors.NAME, scheduler);
            camel.addRoutes(new RouteBuilder() {
                @Override
                public void configure() {
                    from("file:" + inbox + "?scheduler=#" + FilePollsThroughErrors.NAME
                            + "&initialDelay=1234&delay=4321&useFixedDelay=false").routeId("drops").log("taken");
                }
            });
            camel.start();
            assertThat(scheduler.getInitialDelay()).isEqualTo(1234);
            assertThat(scheduler.getDelay()).isEqualTo(4321);
            assertThat(scheduler.isUseFixedDelay()).isFalse();
        }
    }
}
