package dev.ingestor.embedded;

import java.nio.file.Path;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.springframework.jdbc.core.JdbcTemplate;

/** Run in a child JVM that the test kills with SIGKILL, leaving its PostgreSQL behind. */
public final class OrphanMaker {

    static final String READY = "ORPHAN-READY";

    private OrphanMaker() {
    }

    public static void main(String[] args) throws Exception {
        EmbeddedPostgres postgres = EmbeddedPostgresServer.start(Path.of(args[0]), 0);
        new JdbcTemplate(postgres.getPostgresDatabase()).execute("CREATE TABLE survivor (id int)");
        System.out.println(READY);
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
