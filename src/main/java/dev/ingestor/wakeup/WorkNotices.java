package dev.ingestor.wakeup;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;

import dev.ingestor.config.InstanceId;
import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Tells the stages of work a transaction made, once it has committed, without a {@code NOTIFY} in that transaction:
 * at once in this JVM ({@link WorkSignals}), and to the other instances by a {@code pg_notify} that one thread of
 * its own sends after the commit, folding the channels told meanwhile into one transaction. Only while this
 * instance's {@link NoticeListener} listens: with wakeups off the polls alone serve, in this JVM too. And only while
 * another instance listens (V24's {@code wakeup_listened_elsewhere}): a lone instance sends nothing, where each
 * notification was a transaction with a commit flushed to disk and woke its own stages a second time.
 * <p>
 * For the hot commits (a new job opened by every pushed file, the events of every item batch): a commit that
 * notified holds PostgreSQL's notification queue lock until its commit record is flushed, so concurrent pushes that
 * notified in their own transactions were durable one after another instead of together (measured with pgbench, 32
 * clients: 1,500 inserts/s with a notify each against 10,000 without). The other instances' workers hear of the
 * work one round trip later; this instance's at once. The database's trigger (V19) still tells of the workers' and
 * operators' rarer changes (a job validated, handed back, sent back).
 */
@Component
public class WorkNotices {

    private static final Logger LOG = LoggerFactory.getLogger(WorkNotices.class);

    private final WorkSignals signals;
    private final NoticeListener listener;
    private final JdbcTemplate jdbc;
    private final String instance;
    /** Channels told since the sender last sent; the sender takes them all at once. */
    private final Set<Notice> pending = ConcurrentHashMap.newKeySet();
    private final Object sent = new Object();
    private final Thread sender;
    private volatile boolean running = true;

    public WorkNotices(WorkSignals signals, NoticeListener listener, DataSource dataSource, InstanceId instanceId) {
        this.signals = signals;
        this.instance = instanceId.value();
        this.listener = listener;
        this.jdbc = new JdbcTemplate(dataSource);
        this.sender = new Thread(this::sendUntilStopped, "ingestor-work-notices");
        this.sender.setDaemon(true);
        this.sender.start();
    }

    /**
     * Tells {@code channel}'s stage of work once the current transaction commits (never after a rollback); at
     * once when no transaction is active.
     */
    public void afterCommit(String channel) {
        afterCommit(channel, "");
    }

    /** {@link #afterCommit(String)} with a payload: the outbox's channel names the topic events were written to. */
    public void afterCommit(String channel, String payload) {
        Notice notice = new Notice(channel, payload == null ? "" : payload);
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    tell(notice);
                }
            });
        } else {
            tell(notice);
        }
    }

    private record Notice(String channel, String payload) {
    }

    private void tell(Notice notice) {
        if (!listener.isListening()) {
            // wakeups off (ingestor.wakeups.enabled=false, or no listener behind a transaction pooler), or the
            // listener reconnecting (it wakes every route once it is back): the polls serve, as the settings say
            return;
        }
        signals.raise(notice.channel(), notice.payload());
        pending.add(notice);
        synchronized (sent) {
            sent.notifyAll();
        }
    }

    private void sendUntilStopped() {
        while (running) {
            try {
                synchronized (sent) {
                    while (running && pending.isEmpty()) {
                        sent.wait(1000);
                    }
                }
                List<Notice> taken = List.copyOf(pending);
                if (taken.isEmpty()) {
                    // woken to stop
                    continue;
                }
                pending.removeAll(taken);
                // all in one statement and transaction, and only while another instance listens (wakeup_listener)
                jdbc.queryForList("SELECT pg_notify(n.channel, n.payload)"
                        + " FROM unnest(?::text[], ?::text[]) AS n(channel, payload) WHERE wakeup_listened_elsewhere(?)",
                        taken.stream().map(Notice::channel).toArray(String[]::new),
                        taken.stream().map(Notice::payload).toArray(String[]::new), instance);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException | Error e) {
                // the database is away: the other instances' polls find the work; nothing here waits on it. An Error
                // too, so this thread goes on: without it the other instances would hear of nothing more
                pending.clear();
                if (e instanceof Error) {
                    LOG.error("could not tell the other instances of new work; their polls find it", e);
                } else {
                    LOG.debug("could not tell the other instances of new work: {}", e.getMessage());
                }
                sleepQuietly();
            }
        }
    }

    private static void sleepQuietly() {
        try {
            Thread.sleep(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @PreDestroy
    void stop() throws InterruptedException {
        running = false;
        // also out of a wait for a pooled connection
        sender.interrupt();
        sender.join(5000);
    }
}
