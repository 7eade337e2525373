package dev.ingestor.job;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ingestor.support.TestPostgres;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** V21 on a database with dead letters: the count starts from the letters waiting, not from nothing. */
class DeadLetterCountMigrationTest {

    @Test
    void anUpgradeCountsTheLettersAlreadyWaiting() {
        String database = "dead_letter_upgrade_" + System.nanoTime();
        DriverManagerDataSource dataSource = new DriverManagerDataSource(TestPostgres.jdbcUrl(database));
        Flyway.configure().dataSource(dataSource).target("20").load().migrate();
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        // 12 letters, 5 of them replayed, 2 standing without their job
        jdbc.update("""
                INSERT INTO dead_letter (job_id, stage, exception, attempts, replayed_at)
                SELECT NULL, 'processing', 'x', 1, CASE WHEN g <= 5 THEN now() END FROM generate_series(1, 12) g""");

        Flyway.configure().dataSource(dataSource).load().migrate();

        assertThat(new DeadLetterStore(jdbc).waiting()).isEqualTo(7);
        jdbc.update("UPDATE dead_letter SET replayed_at = now() WHERE id = (SELECT max(id) FROM dead_letter)");
        assertThat(new DeadLetterStore(jdbc).waiting()).isEqualTo(6);
    }
}
