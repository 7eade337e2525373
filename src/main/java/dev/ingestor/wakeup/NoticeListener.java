package dev.ingestor.wakeup;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import dev.ingestor.config.DatabaseSettings;
import dev.ingestor.config.InstanceId;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.annotation.PostConstruct;
import org.apache.camel.CamelContext;
import org.apache.camel.support.service.ServiceSupport;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * The one listener of this instance: a connection of its own (outside the pool, whose connections serve requests
 * and workers) that LISTENs on every {@link WorkChannels work channel} and raises the {@link WorkSignals} for each
 * notification. It runs on a thread of Camel's ExecutorServiceManager, as a service of the Camel context (started
 * and stopped with it, so before the embedded database stops).
 * <p>
 * When its connection is lost (the database restarts, the backend is terminated, the network drops it) it
 * connects again, waiting {@code reconnect-delay} doubled up to {@code reconnect-max-delay} between attempts (the
 * delay starts again from {@code reconnect-delay} only after a connection that listened for {@code
 * reconnect-max-delay}, so one lost right after each connect is not tried again every first delay); the loss is
 * logged once (WARN) and the return once (INFO), whatever the number of attempts between. Notifications
 * sent meanwhile are lost, so on every (re)connect it wakes every route; until then the polls alone serve. Gauge
 * {@code ingestor_wakeups_listening}: 1 while it listens.
 * <p>
 * While it listens it keeps this instance's row in {@code wakeup_listener} (until three alive-check intervals ahead,
 * renewed every interval, deleted at its stop): the database's triggers notify only while some instance's row is
 * current, since a notifying commit holds PostgreSQL's notification queue lock through its flush.
 */
@Component
public class NoticeListener extends ServiceSupport {

    private static final Logger LOG = LoggerFactory.getLogger(NoticeListener.class);
    /** How long one wait for notifications lasts at most: how soon a stop is noticed. */
    private static final int WAIT_MILLIS = 500;

    private final WakeupSettings settings;
    private final WorkSignals signals;
    private final DataSource dataSource;
    private final CamelContext camelContext;
    private final String instance;
    private final boolean transactionPooler;
    private final AtomicInteger listening = new AtomicInteger();
    private volatile boolean running;
    private volatile Connection connection;
    private ExecutorService executor;

    public NoticeListener(WakeupSettings settings, WorkSignals signals, DataSource dataSource,
            CamelContext camelContext, MeterRegistry meters, DatabaseSettings database, InstanceId instanceId) {
        this.settings = settings;
        this.instance = instanceId.value();
        this.transactionPooler = database.isTransactionPooler();
        this.signals = signals;
        this.dataSource = dataSource;
        this.camelContext = camelContext;
        Gauge.builder("ingestor.wakeups.listening", listening, AtomicInteger::get)
                .description("1 while this instance's wakeup listener LISTENs; 0: the stages' polls alone serve")
                .register(meters);
    }

    @PostConstruct
    void register() throws Exception {
        if (!settings.isEnabled()) {
            LOG.info("wakeups are off (ingestor.wakeups.enabled=false): the stages find new work by their polls alone");
            return;
        }
        if (transactionPooler && (settings.getListenerUrl() == null || settings.getListenerUrl().isBlank())) {
            // a LISTEN through a pooler in transaction mode would land on whichever server session it picked
            LOG.info("wakeups are off: behind a transaction pooler (ingestor.database.transaction-pooler) the listener"
                    + " needs ingestor.wakeups.listener-url, a direct connection to PostgreSQL; the stages find new"
                    + " work by their polls alone");
            return;
        }
        // started with the Camel context (at once if it runs already) and stopped with it
        camelContext.addService(this, true, true);
    }

    /** True while the listener's connection LISTENs on every work channel. */
    public boolean isListening() {
        return listening.get() == 1;
    }

    @Override
    protected void doStart() {
        running = true;
        executor = camelContext.getExecutorServiceManager().newSingleThreadExecutor(this, "wakeup listener");
        executor.execute(this::listenUntilStopped);
    }

    @Override
    protected void doStop() throws InterruptedException {
        running = false;
        if (executor != null) {
            executor.shutdown();
            // the loop sees the flag within one wait
            if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
                camelContext.getExecutorServiceManager().shutdownNow(executor);
            }
            executor = null;
        }
        closeQuietly(connection);
    }

    private void listenUntilStopped() {
        long backoff = settings.getReconnectDelay().toMillis();
        int failedAttempts = 0;
        // when the connection of this turn began to listen (System.nanoTime), 0 before
        long listeningSince = 0;
        while (running) {
            try (Connection c = connect()) {
                connection = c;
                try (Statement listen = c.createStatement()) {
                    for (String channel : WorkChannels.ALL) {
                        listen.execute("LISTEN " + channel);
                    }
                }
                // after the LISTENs: from now on the triggers notify, and nothing they send is missed
                renew(c);
                listening.set(1);
                listeningSince = System.nanoTime();
                if (failedAttempts > 0) {
                    LOG.info(
                            "wakeup listener is listening again ({} failed attempt(s) since it lost its connection); stages are woken by"
                                    + " notifications again",
                            failedAttempts);
                } else {
                    LOG.debug("wakeup listener listening on {}", WorkChannels.ALL);
                }
                failedAttempts = 0;
                // whatever was notified while nobody listened: every route looks for work now
                signals.raiseAll();
                receive(c);
            } catch (SQLException | RuntimeException | Error e) {
                if (!running) {
                    break;
                }
                if (e instanceof Error) {
                    // a stack overflow, memory run out: handled as a lost connection, so this loop goes on
                    LOG.error("wakeup listener failed", e);
                }
                if (listening.getAndSet(0) == 1 || failedAttempts == 0) {
                    LOG.warn("wakeup listener lost its connection ({}); the stages' polls serve until it is back,"
                            + " connecting again every {} ms up to {}", e.getMessage(),
                            settings.getReconnectDelay().toMillis(), settings.getReconnectMaxDelay());
                } else {
                    LOG.debug("wakeup listener still cannot connect: {}", e.getMessage());
                }
                failedAttempts++;
                if (listeningSince != 0
                        && System.nanoTime() - listeningSince >= settings.getReconnectMaxDelay().toNanos()) {
                    // a connection that served a while: the next is tried after the first delay again. One that
                    // fails right after each connect is tried ever less often, not every first delay
                    backoff = settings.getReconnectDelay().toMillis();
                }
                listeningSince = 0;
                sleep(backoff);
                backoff = Math.min(backoff * 2, settings.getReconnectMaxDelay().toMillis());
            } finally {
                listening.set(0);
                connection = null;
            }
        }
    }

    /** Raises the signal of every notification until the connection fails or the listener stops. */
    private void receive(Connection c) throws SQLException {
        PGConnection pg = c.unwrap(PGConnection.class);
        long renewed = System.nanoTime();
        long aliveCheck = settings.getAliveCheckInterval().toNanos();
        while (running) {
            PGNotification[] notes = pg.getNotifications(WAIT_MILLIS);
            if (notes != null) {
                for (PGNotification note : notes) {
                    signals.raise(note.getName(), note.getParameter());
                }
            }
            if (System.nanoTime() - renewed > aliveCheck) {
                // also the alive check: a connection the network dropped without a word answers nothing
                renew(c);
                renewed = System.nanoTime();
            }
        }
        unregister(c);
    }

    /** This instance's row in wakeup_listener, current for three alive-check intervals from now. */
    private void renew(Connection c) throws SQLException {
        try (PreparedStatement renew = c.prepareStatement("INSERT INTO wakeup_listener (instance, listening_until)"
                + " VALUES (?, now() + ? * interval '1 millisecond') ON CONFLICT (instance)"
                + " DO UPDATE SET listening_until = EXCLUDED.listening_until")) {
            renew.setString(1, instance);
            renew.setLong(2, 3 * settings.getAliveCheckInterval().toMillis());
            renew.executeUpdate();
        }
    }

    /** At a stop: the triggers stop notifying for this instance at once, not when its row runs out. */
    private void unregister(Connection c) {
        try (PreparedStatement gone = c.prepareStatement("DELETE FROM wakeup_listener WHERE instance = ?")) {
            gone.setString(1, instance);
            gone.executeUpdate();
        } catch (SQLException e) {
            LOG.debug("wakeup listener could not delete its row at stop ({}); it runs out by itself", e.getMessage());
        }
    }

    private Connection connect() throws SQLException {
        HikariDataSource pool = dataSource instanceof HikariDataSource h
                ? h
                : dataSource.unwrap(HikariDataSource.class);
        String url = settings.getListenerUrl() == null || settings.getListenerUrl().isBlank()
                ? pool.getJdbcUrl()
                : settings.getListenerUrl();
        // the pool's driver properties first (TLS: sslmode, sslrootcert; the datasource's timeouts), so the listener
        // reaches the server as the pool does
        Properties login = new Properties();
        login.putAll(pool.getDataSourceProperties());
        if (pool.getUsername() != null) {
            login.setProperty("user", pool.getUsername());
        }
        if (pool.getPassword() != null) {
            login.setProperty("password", pool.getPassword());
        }
        login.setProperty("ApplicationName", "ingestor wakeup listener");
        login.setProperty("connectTimeout", "10");
        // bounds the alive check's query on a connection that no longer answers, unless the pool bounds it already
        login.putIfAbsent("socketTimeout", "30");
        login.setProperty("tcpKeepAlive", "true");
        return DriverManager.getConnection(url, login);
    }

    private void sleep(long millis) {
        long until = System.currentTimeMillis() + millis;
        // in short steps, so a stop is not held up by a long backoff
        while (running && System.currentTimeMillis() < until) {
            try {
                Thread.sleep(Math.min(WAIT_MILLIS, Math.max(1, until - System.currentTimeMillis())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // closing a connection that is gone already
            }
        }
    }
}
