package dev.ingestor.config;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code ingestor.database.*}: time limits of every connection to PostgreSQL, embedded or external (applied by
 * {@link DatabaseTimeouts}). A statement past its limit is cancelled and a server that stops answering is given
 * up on, so a hung database answers HTTP callers 503 + Retry-After and sends a stage's step to redelivery,
 * instead of holding a thread and a connection for as long as it hangs.
 */
@ConfigurationProperties(prefix = "ingestor.database")
public class DatabaseSettings {

    /**
     * The longest any statement may run, waits for locks included (PostgreSQL's statement_timeout); 0: no
     * limit. Far above the longest statement of the app (a batch of batch-size records, a retention DELETE, a
     * relay round); migrations at start are not bound by it.
     */
    private Duration statementTimeout = Duration.ofSeconds(30);
    /**
     * The longest a statement waits for a lock (PostgreSQL's lock_timeout); 0: only statement-timeout bounds
     * the wait.
     */
    private Duration lockTimeout = Duration.ofSeconds(0);
    /**
     * The longest the driver waits for the server to answer (pgjdbc's socketTimeout, in whole seconds); past it
     * the connection is closed. Must be longer than statement-timeout (else no start), so that a slow statement is
     * cancelled by the server while its connection stays usable; 0: no limit.
     */
    private Duration socketTimeout = Duration.ofSeconds(60);
    /**
     * The app reaches PostgreSQL through a pooler in transaction mode (PgBouncer's pool_mode = transaction), where
     * consecutive transactions of one connection may run on different server sessions. Then the connections carry
     * no startup options (such a pooler refuses them: set statement-timeout and lock-timeout on the role instead,
     * ALTER ROLE ... SET statement_timeout = ..., which the app checks at start) and no server-side prepared
     * statements (pgjdbc's prepareThreshold=0: a statement prepared on one session is unknown to the next).
     */
    private boolean transactionPooler = false;

    public Duration getStatementTimeout() { return statementTimeout; }
    public void setStatementTimeout(Duration statementTimeout) { this.statementTimeout = statementTimeout; }
    public Duration getLockTimeout() { return lockTimeout; }
    public void setLockTimeout(Duration lockTimeout) { this.lockTimeout = lockTimeout; }
    public Duration getSocketTimeout() { return socketTimeout; }
    public void setSocketTimeout(Duration socketTimeout) { this.socketTimeout = socketTimeout; }
    public boolean isTransactionPooler() { return transactionPooler; }
    public void setTransactionPooler(boolean transactionPooler) { this.transactionPooler = transactionPooler; }
}
