package dev.ingestor.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import dev.ingestor.support.TestPostgres;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * V16 on a database with a backlog: the events not yet published stay in the outbox with their ids (their order)
 * and get their slice; the published and refused ones move to the archive with their times and reasons; nothing
 * is lost.
 */
class RelaySlicesMigrationTest {

    @Test
    void anUpgradeWithABacklogKeepsEveryEventAndTheOrder() {
        String database = "relay_upgrade_" + System.nanoTime();
        DriverManagerDataSource dataSource = new DriverManagerDataSource(TestPostgres.jdbcUrl(database));
        Flyway.configure().dataSource(dataSource).target("15").load().migrate();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        // published, pending and refused events of two topics, mixed as a running relay leaves them
        jdbc.update("""
                INSERT INTO outbox (event_id, topic, event_key, payload, created_at, published_at, refused)
                SELECT gen_random_uuid(), CASE WHEN g % 5 = 0 THEN 'dl' ELSE 'items' END, 'key-' || (g % 7),
                       '{"n":' || g || '}', now() - interval '1 hour',
                       CASE WHEN g <= 60 OR g % 9 = 0 THEN now() - interval '10 minutes' END,
                       CASE WHEN g = 45 THEN 'RecordTooLargeException: too large' END
                FROM generate_series(1, 100) g ORDER BY g""");
        List<Map<String, Object>> before = jdbc.queryForList(
                "SELECT id, event_id, topic, event_key, payload, published_at, refused FROM outbox ORDER BY id");
        List<Long> pendingBefore = jdbc.queryForList("SELECT id FROM outbox WHERE published_at IS NULL ORDER BY id",
                Long.class);

        Flyway.configure().dataSource(dataSource).load().migrate();

        assertThat(jdbc.queryForList("SELECT id FROM outbox ORDER BY id", Long.class)).isEqualTo(pendingBefore);
        assertThat(jdbc.queryForList(
                "SELECT id, event_id, topic, event_key, payload, published_at, refused FROM outbox_all ORDER BY id"))
                .isEqualTo(before);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM outbox_published", Long.class))
                .isEqualTo(before.size() - pendingBefore.size());
        assertThat(jdbc.queryForObject("SELECT refused FROM outbox_published WHERE refused IS NOT NULL", String.class))
                .startsWith("RecordTooLargeException");
        // one key, one slice; the slices cover 0 to outbox_slice_count() - 1
        assertThat(jdbc.queryForObject("SELECT count(*) FROM (SELECT event_key FROM outbox GROUP BY event_key"
                + " HAVING count(DISTINCT slice) > 1) k", Long.class)).isZero();
        assertThat(jdbc.queryForObject("SELECT bool_and(slice >= 0 AND slice < outbox_slice_count()) FROM outbox",
                Boolean.class)).isTrue();
        // a new event takes the next id, after the backlog
        jdbc.update("INSERT INTO outbox (event_id, topic, event_key, payload) VALUES (gen_random_uuid(), 'items', 'k',"
                + " '{}')");
        assertThat(jdbc.queryForObject("SELECT max(id) FROM outbox", Long.class)).isGreaterThan(100L);
    }
}
