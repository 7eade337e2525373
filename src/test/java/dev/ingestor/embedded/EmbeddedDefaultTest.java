package dev.ingestor.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.ingestor.IngestorApplication;
import dev.ingestor.support.ChildJvm;
import dev.ingestor.support.FreePorts;
import dev.ingestor.support.SlowTest;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** The embedded default run: no datasource configured, PostgreSQL started by the app, data kept on disk. */
// slow tier: applications started, stopped and killed with their embedded PostgreSQL
@SlowTest
class EmbeddedDefaultTest {

    @Test
    void jobsSurviveARestartAndCommitsAreDurable() throws Exception {
        Path work = Files.createTempDirectory("ingestor-embedded-");
        UUID jobId;
        try (ConfigurableApplicationContext app = start(work)) {
            JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);
            assertThat(jdbc.queryForObject("SHOW synchronous_commit", String.class)).isEqualTo("on");
            assertThat(jdbc.queryForObject("SHOW fsync", String.class)).isEqualTo("on");
            // spring.datasource.hikari.* and ingestor.database.* hold for the embedded pool as for an external one
            assertThat(
                    ((com.zaxxer.hikari.HikariDataSource) app.getBean(javax.sql.DataSource.class)).getMaximumPoolSize())
                    .isEqualTo(46);
            assertThat(jdbc.queryForObject("SHOW statement_timeout", String.class)).isEqualTo("30s");
            Path drop = Files.writeString(work.resolve("staged.csv"),
                    "source_id,sku,quantity,delivery_date\nE-1,S,1,2026-12-01\n");
            Files.createDirectories(work.resolve("inbox/ACME"));
            Files.move(drop, work.resolve("inbox/ACME/advice.csv"));
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> jdbc.queryForObject("SELECT count(*) FROM import_job", Long.class) == 1);
            jobId = jdbc.queryForObject("SELECT id FROM import_job", UUID.class);
        }
        try (ConfigurableApplicationContext app = start(work)) {
            JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);
            assertThat(jdbc.queryForObject("SELECT id FROM import_job", UUID.class)).isEqualTo(jobId);
            // the folder made at the first start is of the binaries' major, and they are PostgreSQL 18
            assertThat(jdbc.queryForObject("SHOW server_version", String.class)).startsWith("18.");
            assertThat(Files.readString(work.resolve("data/postgres/PG_VERSION")).trim())
                    .isEqualTo(PostgresBinaries.major()).isEqualTo("18");
        }
    }

    /**
     * A data folder made by another PostgreSQL major (14, as the embedded default ran before) is refused at start
     * with what to do, and nothing in it or beside it is touched: no initdb, no lock file, no pg_hba.conf, no server.
     * The folder is a real cluster whose PG_VERSION says 14, so without the check the start would go on to open it.
     */
    @Test
    void aDataFolderOfAnotherPostgresMajorIsRefusedAndLeftAsItWas() throws Exception {
        Path work = Files.createTempDirectory("ingestor-pg-major-");
        Path data = work.resolve("data/postgres");
        EmbeddedPostgresServer.start(data, 0).close();
        Files.writeString(data.resolve("PG_VERSION"), "14\n");
        Files.writeString(data.resolve("operator-notes.txt"), "kept as it is\n");
        Map<String, String> before = snapshot(work.resolve("data"), data);

        assertThatThrownBy(() -> start(work).close())
                .rootCause().isInstanceOf(IllegalStateException.class)
                .hasMessage(DataFolderMajor.otherMajor(data.toAbsolutePath(), "14", "18"))
                .hasMessageContaining(data.toAbsolutePath() + " was made by PostgreSQL 14")
                .hasMessageContaining("runs PostgreSQL 18")
                .hasMessageContaining("pg_dumpall").hasMessageContaining("pg_upgrade")
                .hasMessageContaining("spring.datasource.url");

        assertThat(snapshot(work.resolve("data"), data)).isEqualTo(before);
        assertThat(data.resolve("postmaster.pid")).doesNotExist();
    }

    /**
     * A folder with files but no PG_VERSION is no cluster to start nor an empty folder to initialise: refused as it is.
     */
    @Test
    void aFolderWithFilesButNoPgVersionIsNeitherStartedNorInitialisedOver() throws Exception {
        Path data = Files.createTempDirectory("ingestor-pg-stray-").resolve("postgres");
        Files.createDirectories(data.resolve("base"));
        Files.writeString(data.resolve("postgresql.conf"), "# not made by initdb\n");
        Files.writeString(data.resolve("base/something"), "someone's data\n");
        Map<String, String> before = snapshot(data.getParent(), data);

        assertThatThrownBy(() -> EmbeddedPostgresServer.start(data, 0).close())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(data.toAbsolutePath() + " holds files but no PG_VERSION")
                .hasMessageContaining("ingestor.data-dir");

        assertThat(snapshot(data.getParent(), data)).isEqualTo(before);
    }

    /**
     * A first start cut short while initdb wrote the folder (a kill, a power cut) leaves what initdb writes first:
     * PG_VERSION, postgresql.conf, empty folders. Such a folder never starts; its first start's mark says that
     * nothing but initdb wrote it, and the next start makes it anew. Without the mark it is left as it is.
     */
    @Test
    void aFirstStartCutShortDuringInitdbIsMadeAnewAndAFolderWithoutItsMarkIsKept() throws Exception {
        Path data = Files.createTempDirectory("ingestor-pg-initdb-").resolve("postgres");
        try (EmbeddedPostgres postgres = EmbeddedPostgresServer.start(data, 0)) {
            assertThat(UnfinishedFirstStart.mark(data)).doesNotExist();
        }
        String major = Files.readString(data.resolve("PG_VERSION")).trim();
        Path cut = Files.createTempDirectory("ingestor-pg-initdb-").resolve("postgres");
        writeWhatInitdbWritesFirst(cut, major);
        Files.createFile(UnfinishedFirstStart.mark(cut));
        assertThat(startAndAskAsTheApp(cut, "SELECT current_database()")).isEqualTo("ingestor");
        assertThat(UnfinishedFirstStart.mark(cut)).doesNotExist();

        Path unmarked = Files.createTempDirectory("ingestor-pg-initdb-").resolve("postgres");
        writeWhatInitdbWritesFirst(unmarked, major);
        // (started, it would fail after zonky's minute of waiting for a server)
        UnfinishedFirstStart.discardLeftovers(unmarked);
        assertThat(unmarked.resolve("PG_VERSION")).hasContent(major);
        assertThat(unmarked.resolve("postgresql.conf")).hasContent("# written by initdb");
        assertThat(UnfinishedFirstStart.mark(unmarked)).doesNotExist();

        // a mark beside a folder in use (a release without the mark ran on it): the folder and its data are kept
        startAndAskAsTheApp(data, "CREATE TABLE kept_through_a_stale_mark (id int)");
        Files.createFile(UnfinishedFirstStart.mark(data));
        assertThat(startAndAskAsTheApp(data, "SELECT count(*) FROM kept_through_a_stale_mark")).isEqualTo("0");
        assertThat(UnfinishedFirstStart.mark(data)).doesNotExist();

        // a folder from before the app had a database of its own keeps its tables in database postgres (5)
        Path oldLayout = Files.createTempDirectory("ingestor-pg-initdb-").resolve("postgres");
        writeWhatInitdbWritesFirst(oldLayout, major);
        Files.createDirectories(oldLayout.resolve("base/5"));
        Files.writeString(oldLayout.resolve("base/5/16390"), "a table of the app's");
        Files.createFile(UnfinishedFirstStart.mark(oldLayout));
        UnfinishedFirstStart.discardLeftovers(oldLayout);
        assertThat(oldLayout.resolve("base/5/16390")).exists();
        assertThat(UnfinishedFirstStart.mark(oldLayout)).doesNotExist();
    }

    /**
     * Starts the server on {@code data}, runs {@code sql} as the app and answers its first value (null for a statement
     * without rows); stops the server.
     */
    private static String startAndAskAsTheApp(Path data, String sql) throws Exception {
        try (EmbeddedPostgres postgres = EmbeddedPostgresServer.start(data, 0)) {
            EmbeddedPostgresServer.Login login = EmbeddedPostgresServer.appLogin(postgres, data);
            try (Connection app = DriverManager.getConnection(login.jdbcUrl(), login.username(), login.password());
                    Statement s = app.createStatement()) {
                return s.execute(sql) ? value(s, sql) : null;
            }
        }
    }

    private static void writeWhatInitdbWritesFirst(Path dir, String major) throws IOException {
        for (String folder : List.of("base", "global", "pg_wal", "pg_xact")) {
            Files.createDirectories(dir.resolve(folder));
        }
        Files.writeString(dir.resolve("PG_VERSION"), major + "\n");
        Files.writeString(dir.resolve("postgresql.conf"), "# written by initdb\n");
    }

    @Test
    void theMajorIsReadFromWhatPostgresSaysOfItsVersion() throws Exception {
        assertThat(PostgresBinaries.majorOf("postgres (PostgreSQL) 18.1")).isEqualTo("18");
        assertThat(PostgresBinaries.majorOf("postgres (PostgreSQL) 10.23")).isEqualTo("10");
        assertThat(PostgresBinaries.majorOf("postgres (PostgreSQL) 19beta1")).isEqualTo("19");
        assertThat(PostgresBinaries.majorOf("postgres (PostgreSQL) 9.6.24")).isEqualTo("9.6");
        assertThatThrownBy(() -> PostgresBinaries.majorOf("no such file")).isInstanceOf(IOException.class);
    }

    @Test
    void aPostmasterOrphanedByAKilledJvmIsStoppedAndItsDataKept() throws Exception {
        Path data = Files.createTempDirectory("ingestor-orphan-").resolve("postgres");
        Process jvm = ChildJvm.of(OrphanMaker.class).arguments(data.toString()).start();
        try (var out = new java.io.BufferedReader(new java.io.InputStreamReader(jvm.getInputStream()))) {
            String line;
            while ((line = out.readLine()) != null && !line.equals(OrphanMaker.READY)) {
                // start-up chatter
            }
            assertThat(line).isEqualTo(OrphanMaker.READY);
        }
        jvm.destroyForcibly().waitFor();
        long orphanPid = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim());
        assertThat(ProcessHandle.of(orphanPid).map(ProcessHandle::isAlive)).hasValue(true);

        try (EmbeddedPostgres next = EmbeddedPostgresServer.start(data, 0)) {
            assertThat(ProcessHandle.of(orphanPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
            assertThat(new JdbcTemplate(next.getPostgresDatabase())
                    .queryForObject("SELECT count(*) FROM survivor", Long.class)).isZero();
        }
    }

    /**
     * A second start on the data folder of a running instance is refused at once, naming the folder and
     * ingestor.data-dir, and signals nothing: the running instance's PostgreSQL still takes new connections. Both are
     * the app in a JVM of its own, as an operator starts it twice. Without the check, the second start took the first's
     * postmaster for an orphan and stopped it (new connections refused: "the database system is shutting down").
     */
    @Test
    void aSecondStartOnARunningInstancesDataFolderIsRefusedAndTheFirstKeepsItsDatabase() throws Exception {
        Path work = Files.createTempDirectory("ingestor-twice-");
        Path postgres = work.resolve("data/postgres").toAbsolutePath();
        int postgresPort = FreePorts.outsideTheEphemeralRange();
        try (AppProcess first = AppProcess.start(work.resolve("first.log"), appArguments(work, postgresPort))) {
            await().atMost(Duration.ofMinutes(3)).until(() -> !first.process().isAlive() || first.started());
            assertThat(first.started()).as(first.output()).isTrue();

            try (AppProcess second = AppProcess.start(work.resolve("second.log"), appArguments(work, 0))) {
                assertThat(second.process().waitFor(2, TimeUnit.MINUTES)).as("the second start ended").isTrue();
                assertThat(second.process().exitValue()).isNotZero();
                assertThat(second.output()).as("the second start's output")
                        .contains(DataFolderLock.inUseMessage(postgres))
                        .doesNotContain("stopping an orphaned embedded PostgreSQL");
            }

            assertThat(first.process().isAlive()).isTrue();
            String password = PasswordFile.read(EmbeddedPostgresServer.appPasswordFile(postgres));
            try (Connection app = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + postgresPort + "/"
                    + EmbeddedPostgresServer.APP_DATABASE, EmbeddedPostgresServer.APP_ROLE, password);
                    Statement s = app.createStatement()) {
                assertThat(value(s, "SELECT count(*) FROM import_job")).isEqualTo("0");
            }
        }
    }

    /**
     * A second start in the same JVM is refused too, and leaves the folder locked: a lock of FileChannel is the
     * process's (POSIX), so closing any channel on the lock file would drop the running server's, and a start in
     * another process would then take its postmaster for an orphan.
     */
    @Test
    void aSecondStartInTheSameJvmIsRefusedAndTheFolderStaysLocked() throws Exception {
        Path data = Files.createTempDirectory("ingestor-twice-jvm-").resolve("postgres");
        try (EmbeddedPostgres running = EmbeddedPostgresServer.start(data, 0)) {
            assertThatThrownBy(() -> EmbeddedPostgresServer.start(data, 0).close())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage(DataFolderLock.inUseMessage(data.toAbsolutePath()));

            ChildJvm.Run probe = ChildJvm.of(LockProbe.class).arguments(data.toString()).run(Duration.ofMinutes(1));
            String said = probe.output();
            assertThat(probe.ended()).isTrue();
            assertThat(said).as("another process's attempt").contains(LockProbe.HELD);
            assertThat(new JdbcTemplate(running.getPostgresDatabase()).queryForObject("SELECT 1", Integer.class))
                    .isOne();
        }
    }

    private static String[] appArguments(Path work, int postgresPort) {
        return new String[] {"--server.port=0", "--ingestor.embedded.kafka.port=0",
                "--ingestor.embedded.postgres.port=" + postgresPort, "--ingestor.data-dir=" + work.resolve("data"),
                "--ingestor.inbox-dir=" + work.resolve("inbox")};
    }

    @Test
    void theServerTakesPasswordLoginsOnLoopbackOnlyAndTheAppIsNoSuperuser() throws Exception {
        Path data = Files.createTempDirectory("ingestor-pg-auth-").resolve("postgres");
        EmbeddedPostgresServer.Login login;
        try (EmbeddedPostgres postgres = EmbeddedPostgresServer.start(data, 0)) {
            login = EmbeddedPostgresServer.appLogin(postgres, data);
            assertThat(login.username()).isEqualTo("ingestor");
            assertThat(Files.getPosixFilePermissions(EmbeddedPostgresServer.superuserPasswordFile(data)))
                    .isEqualTo(PosixFilePermissions.fromString("rw-------"));
            assertThat(Files.getPosixFilePermissions(EmbeddedPostgresServer.appPasswordFile(data)))
                    .isEqualTo(PosixFilePermissions.fromString("rw-------"));
            try (Connection app = DriverManager.getConnection(login.jdbcUrl(), login.username(), login.password());
                    Statement s = app.createStatement()) {
                assertThat(value(s, "SHOW listen_addresses")).isEqualTo("127.0.0.1");
                assertThat(value(s, "SELECT rolsuper::text FROM pg_roles WHERE rolname = current_user"))
                        .isEqualTo("false");
                s.execute("CREATE TABLE kept (id int)");
                assertThatThrownBy(() -> s.execute("COPY (SELECT 1) TO PROGRAM 'true'"))
                        .isInstanceOf(SQLException.class);
            }
            String url = "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres";
            String superuserPassword = Files.readString(EmbeddedPostgresServer.superuserPasswordFile(data)).trim();
            try (Connection superuser = DriverManager.getConnection(url, "postgres", superuserPassword);
                    Statement s = superuser.createStatement()) {
                // no socket file: TCP on loopback is the only way in
                assertThat(value(s, "SHOW unix_socket_directories")).isEmpty();
            }
            assertThatThrownBy(() -> DriverManager.getConnection(url, "postgres", null).close())
                    .isInstanceOf(SQLException.class).hasMessageContaining("password");
            assertThatThrownBy(() -> DriverManager.getConnection(url, "postgres", "postgres").close())
                    .isInstanceOf(SQLException.class).hasMessageContaining("password authentication failed");
            assertThatThrownBy(() -> DriverManager.getConnection(url, "intruder", login.password()).close())
                    .isInstanceOf(SQLException.class).hasMessageContaining("password authentication failed");
            for (InetAddress address : nonLoopbackAddresses()) {
                try (Socket socket = new Socket()) {
                    assertThatThrownBy(() -> socket.connect(new InetSocketAddress(address, postgres.getPort()), 2000))
                            .as("port open on %s", address).isInstanceOf(IOException.class);
                }
            }
        }
        try (EmbeddedPostgres again = EmbeddedPostgresServer.start(data, 0)) {
            EmbeddedPostgresServer.Login next = EmbeddedPostgresServer.appLogin(again, data);
            assertThat(next.password()).isEqualTo(login.password());
            try (Connection app = DriverManager.getConnection(next.jdbcUrl(), next.username(), next.password());
                    Statement s = app.createStatement()) {
                assertThat(value(s, "SELECT count(*) FROM kept")).isEqualTo("0");
            }
        }
    }

    @Test
    void aDataDirectoryFromBeforePasswordsGetsOneAndKeepsItsTables() throws Exception {
        Path data = Files.createTempDirectory("ingestor-pg-old-").resolve("postgres");
        try (EmbeddedPostgres old = EmbeddedPostgres.builder().setDataDirectory(data).setCleanDataDirectory(false)
                .start()) {
            new JdbcTemplate(old.getPostgresDatabase()).execute("CREATE TABLE flyway_schema_history (id int)");
        }
        try (EmbeddedPostgres postgres = EmbeddedPostgresServer.start(data, 0)) {
            EmbeddedPostgresServer.Login login = EmbeddedPostgresServer.appLogin(postgres, data);
            assertThat(login.username()).isEqualTo("postgres");
            assertThat(
                    new JdbcTemplate(new DriverManagerDataSource(login.jdbcUrl(), login.username(), login.password()))
                            .queryForObject("SELECT count(*) FROM flyway_schema_history", Long.class))
                    .isZero();
            String url = "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres";
            assertThatThrownBy(() -> DriverManager.getConnection(url, "postgres", null).close())
                    .isInstanceOf(SQLException.class);
            assertThat(Files.readString(data.resolve("pg_hba.conf"))).doesNotContain("trust");
        }
    }

    private static String value(Statement s, String query) throws SQLException {
        try (ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getString(1);
        }
    }

    /**
     * Every file and folder of {@code folder} (its contents' SHA-256 and times), and the password files the server
     * keeps beside it in {@code dataDir}.
     */
    private static Map<String, String> snapshot(Path dataDir, Path folder) throws Exception {
        Map<String, String> state = new TreeMap<>();
        try (Stream<Path> paths = Stream.concat(Files.walk(folder),
                Stream.of(EmbeddedPostgresServer.superuserPasswordFile(folder),
                        EmbeddedPostgresServer.appPasswordFile(folder))
                        .filter(Files::exists))) {
            for (Path path : paths.toList()) {
                String what = Files.isDirectory(path)
                        ? "folder"
                        : HexFormat.of()
                                .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(path)));
                state.put(dataDir.relativize(path).toString(), what + " " + Files.getLastModifiedTime(path));
            }
        }
        return state;
    }

    static List<InetAddress> nonLoopbackAddresses() throws IOException {
        return NetworkInterface.networkInterfaces().flatMap(NetworkInterface::inetAddresses)
                .filter(a -> !a.isLoopbackAddress() && !a.isLinkLocalAddress()).toList();
    }

    private static ConfigurableApplicationContext start(Path work) {
        return new SpringApplicationBuilder(IngestorApplication.class).run(
                "--server.port=0",
                "--ingestor.embedded.kafka.port=0",
                "--ingestor.data-dir=" + work.resolve("data"),
                "--ingestor.inbox-dir=" + work.resolve("inbox"),
                "--ingestor.suppliers.ACME.file-drop.min-age=200ms",
                "--ingestor.suppliers.ACME.file-drop.poll-interval=100ms");
    }
}
