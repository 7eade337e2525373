package dev.ingestor.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import dev.ingestor.support.TestPostgres;
import org.junit.jupiter.api.Test;

/** The sums the start-up report of the connection budget makes. */
class ConnectionBudgetTest {

    @Test
    void instancesThatFitAreTheOrdinarySlotsOverThePoolSize() {
        assertThat(new ConnectionBudget.Reading(46, 100, 3, 0).instancesThatFit()).isEqualTo(2);
        assertThat(new ConnectionBudget.Reading(48, 200, 3, 0).instancesThatFit()).isEqualTo(4);
        assertThat(new ConnectionBudget.Reading(48, 40, 3, 0).instancesThatFit()).isZero();
        assertThat(new ConnectionBudget.Reading(48, 101, 3, 0).instancesThatFit()).as("49 a piece").isEqualTo(2);
        assertThat(new ConnectionBudget.Reading(48, 100, 3, 0).instancesThatFit()).as("97 < 98").isEqualTo(1);
    }

    @Test
    void aPoolFitsWhenItsConnectionsAndThoseInUseStayUnderTheOrdinarySlots() {
        assertThat(new ConnectionBudget.Reading(48, 100, 3, 48).fitsBesideWhatIsInUse()).isTrue();
        assertThat(new ConnectionBudget.Reading(48, 100, 3, 49).fitsBesideWhatIsInUse()).isFalse();
    }

    /** The report comes once the routes run: the pool's own open connections are not counted twice. */
    @Test
    void theConnectionsInUseAreOthersThanThePoolsOwn() throws Exception {
        try (HikariDataSource pool = new HikariDataSource()) {
            pool.setJdbcUrl(TestPostgres.jdbcUrl("connection_budget"));
            pool.setMinimumIdle(3);
            pool.setMaximumPoolSize(3);
            pool.getConnection().close(); // the pool starts with its first connection
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> pool.getHikariPoolMXBean().getTotalConnections() == 3);
            assertThat(ConnectionBudget.othersInUse(10, pool)).isEqualTo(7);
            assertThat(ConnectionBudget.othersInUse(2, pool)).isZero();
        }
    }
}
