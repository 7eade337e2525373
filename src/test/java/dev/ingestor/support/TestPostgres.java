package dev.ingestor.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.flywaydb.core.Flyway;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** One real PostgreSQL server for the whole test JVM; each user gets its own database in it. */
public final class TestPostgres {

    private static EmbeddedPostgres server;

    private TestPostgres() {
    }

    public static synchronized EmbeddedPostgres server() {
        if (server == null) {
            try {
                server = EmbeddedPostgres.builder().start();
            } catch (IOException e) {
                throw new UncheckedIOException("embedded PostgreSQL did not start", e);
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    server.close();
                } catch (IOException ignored) {
                    // the JVM is going away
                }
            }));
        }
        return server;
    }

    /** A JDBC URL for a database of this name, created on first use. */
    public static synchronized String jdbcUrl(String database) {
        EmbeddedPostgres pg = server();
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            var rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + database + "'");
            if (!rs.next()) {
                s.execute("CREATE DATABASE " + database);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create test database " + database, e);
        }
        return pg.getJdbcUrl("postgres", database);
    }

    /**
     * A JDBC URL for a new database {@code database}, a copy of {@code template} (its tables, rows and statistics): a
     * file copy on the server, far quicker than filling it again. Nothing may be connected to the template meanwhile.
     */
    public static synchronized String copyOf(String template, String database) {
        EmbeddedPostgres pg = server();
        try (Connection c = pg.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + database + " TEMPLATE " + template);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot copy test database " + template + " to " + database, e);
        }
        return pg.getJdbcUrl("postgres", database);
    }

    /** A database of this name with the application's migrations applied; a connection of its own per statement. */
    public static JdbcTemplate migrated(String database) {
        DriverManagerDataSource dataSource = new DriverManagerDataSource(jdbcUrl(database));
        Flyway.configure().dataSource(dataSource).load().migrate();
        return new JdbcTemplate(dataSource);
    }
}
