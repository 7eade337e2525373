package dev.ingestor.config;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;
import org.springframework.stereotype.Component;

/**
 * Lifts {@link DatabaseTimeouts} for each Flyway migration at start: a migration over a table of millions of
 * rows (an index, a new column) may rightly run for minutes, and a start that cancels it would fail again at
 * every start. Inside the migration's own transaction ({@code SET LOCAL}), so the limits come back with its end
 * whatever the outcome, and the socket timeout of the migration's connection, which the pool puts back when
 * Flyway returns the connection. A migration that runs outside a transaction keeps the limits.
 */
@Component
class MigrationsWithoutTimeouts implements Callback {

    @Override
    public boolean supports(Event event, Context context) {
        return event == Event.BEFORE_EACH_MIGRATE;
    }

    @Override
    public boolean canHandleInTransaction(Event event, Context context) {
        return true;
    }

    @Override
    public void handle(Event event, Context context) {
        Connection connection = context.getConnection();
        try (Statement statement = connection.createStatement()) {
            // no socket limit at all: a migration over a large table may take longer than a supplier's records ever do
            DatabaseTimeouts.noTimeLimitInThisTransaction(connection, Duration.ZERO);
            statement.execute("SET LOCAL lock_timeout = 0");
        } catch (SQLException e) {
            throw new IllegalStateException("could not lift the database time limits for migration "
                    + context.getMigrationInfo().getVersion(), e);
        }
    }

    @Override
    public String getCallbackName() { return "ingestor-migrations-without-timeouts"; }
}
