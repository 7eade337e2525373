package dev.ingestor.config;

import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.database.postgresql.PostgreSQLConfigurationExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;
import org.springframework.stereotype.Component;

/**
 * The lock that lets one instance at a time run the migrations at start. Flyway's PostgreSQL default holds it in a
 * transaction (pg_advisory_xact_lock) on a connection of its own, which sits idle in that open transaction while
 * each migration runs on another: a server whose {@code idle_in_transaction_session_timeout} (a DBA's setting on the
 * role or the database) is shorter than a migration ends that session, the migration is rolled back, and every
 * start runs it again, whole, to the same end (V13 rewrites the items for a minute on a year of data). On a direct
 * connection the lock is held by the session instead (pg_advisory_lock), in no transaction, and goes with the
 * session should the instance die. Behind a pooler in transaction mode ({@code ingestor.database.transaction-pooler})
 * the lock stays in its transaction: a session's lock would stay on whichever server session the pooler picked.
 */
@Component
class MigrationLock implements FlywayConfigurationCustomizer {

    private final boolean transactionPooler;

    @Autowired
    MigrationLock(DatabaseTimeouts timeouts) {
        this(timeouts.transactionPooler());
    }

    MigrationLock(boolean transactionPooler) {
        this.transactionPooler = transactionPooler;
    }

    @Override
    public void customize(FluentConfiguration configuration) {
        configuration.getPluginRegister().getExact(PostgreSQLConfigurationExtension.class)
                .setTransactionalLock(transactionPooler);
    }
}
