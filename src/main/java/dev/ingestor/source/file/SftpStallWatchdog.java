package dev.ingestor.source.file;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.jcraft.jsch.Session;
import org.apache.camel.Consumer;
import org.apache.camel.component.file.GenericFileConsumer;
import org.apache.camel.component.file.GenericFileOperations;
import org.apache.camel.component.file.remote.RemoteFileOperations;
import org.apache.camel.component.file.remote.SftpOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/**
 * Ends an SFTP transfer that stopped moving: a server whose SSH connection lives (its keep-alives answered by JSch's
 * own thread, so neither {@code serverAliveInterval} nor {@code soTimeout} ever fires) while its SFTP subsystem sends
 * nothing more, as behind a hung disk. The poll thread would wait on that read for ever, renewing the route's lease and
 * the file's claim all the while, so no other instance would take the supplier over.
 * <p>
 * Watched, each for {@code ingestor.sftp.stall-timeout} ({@link SftpSettings#getStallTimeout()}) without progress:
 * <ul>
 * <li>the route's own download ({@link RemoteDownload}): the file opened again for a redelivery, every block read
 * (each is progress), and the look at the file once it is read;</li>
 * <li>Camel's listing at the start of a poll: from the poll strategy's {@code begin} ({@link SftpPollStrategy}) to
 * the first file the poll takes ({@link SftpClaimReadLock}), or to the poll's end when it takes none. The listing
 * reports no progress of its own, so a listing that takes longer than the time limit is ended too.</li>
 * </ul>
 * Not watched: the read lock's one look at the file on the server before it is taken ({@link
 * RemoteDownload#remember}), the opening of the file by Camel before the route, and the move after intake.
 * <p>
 * A watch that outlives the limit is abandoned: one WARN naming the supplier, what was under way and the setting, then
 * the endpoint's SSH session is disconnected. That ends the blocked read with an exception (the download fails as any
 * failed download: {@link RemoteTransferStalledException}; a listing fails the poll, which the poll strategy reports),
 * and the next poll logs in again (Camel connects whenever its session is not). The session is disconnected directly,
 * not through {@link SftpOperations#forceDisconnect()}: that waits for the lock the hung listing holds.
 * <p>
 * One scheduled check on a thread of its own looks at every watch of every route, a fraction of the limit apart; no
 * thread per transfer. A session is disconnected on a thread of its own, so a disconnect that blocks holds up no other
 * route's check. A watch is closed by its transfer or abandoned by the check, never both: a download that ends as it
 * is abandoned is failed, not taken.
 */
@Component
class SftpStallWatchdog implements DisposableBean {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.sftp");
    static final String SETTING = "ingestor.sftp.stall-timeout";

    private final long limitNanos;
    private final Duration limit;
    private final Set<Watch> watches = ConcurrentHashMap.newKeySet();
    /** The listing watch of each route's poll under way, by route id. */
    private final Map<String, Watch> listings = new ConcurrentHashMap<>();
    private final long periodMillis;
    /** Made with the first watch: a context without SFTP routes has no thread for it. */
    private ScheduledExecutorService checks;
    private boolean destroyed;
    /** Makes the thread a session is disconnected on ({@link #disconnectApart}). */
    private ThreadFactory disconnectThreads = task -> {
        Thread thread = new Thread(task, "ingestor-sftp-stall-disconnect");
        thread.setDaemon(true);
        return thread;
    };

    SftpStallWatchdog(SftpSettings settings) {
        Duration timeout = settings.getStallTimeout();
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalStateException(SETTING + " must be positive, was " + timeout);
        }
        this.limit = timeout;
        this.limitNanos = timeout.toNanos();
        // a tenth of the limit apart (between 20 ms and 5 s): a stall is ended within the limit and a tenth
        this.periodMillis = Math.max(20, Math.min(5000, timeout.toMillis() / 10));
    }

    private synchronized void start() {
        if (checks != null || destroyed) {
            return;
        }
        checks = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "ingestor-sftp-stall-watchdog");
            thread.setDaemon(true);
            return thread;
        });
        checks.scheduleWithFixedDelay(this::check, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
    }

    /** The time limit, {@code ingestor.sftp.stall-timeout}. */
    Duration limit() {
        return limit;
    }

    /**
     * Watches a transfer of {@code supplier}'s: {@code what} (a file, a listing) on the session of {@code operations},
     * until the watch is closed; {@link Watch#progress()} after each block that arrived.
     */
    Watch watch(String supplier, String what, GenericFileOperations<?> operations) {
        start();
        Watch watch = new Watch(supplier, what, operations);
        watches.add(watch);
        return watch;
    }

    /** Watches the listing of the poll of {@code consumer} that begins now, until {@link #listed} for its route. */
    void listing(String routeId, String supplier, Consumer consumer) {
        GenericFileOperations<?> operations = operationsOf(consumer);
        if (operations == null) {
            return;
        }
        Watch previous = listings.put(routeId, watch(supplier, "the listing of " + consumer.getEndpoint()
                .getEndpointBaseUri().replaceFirst("\\?.*", ""), operations));
        if (previous != null) {
            previous.close();
        }
    }

    /** The listing of {@code routeId}'s poll is over (its first file is taken, or the poll ended). */
    void listed(String routeId) {
        Watch watch = listings.remove(routeId);
        if (watch != null) {
            watch.close();
        }
    }

    private void check() {
        long now = System.nanoTime();
        for (Watch watch : watches) {
            if (now - watch.lastProgress > limitNanos && watch.abandon()) {
                watches.remove(watch);
                try {
                    disconnectApart(watch);
                } catch (RuntimeException | Error e) {
                    // no thread for it (memory, the process's limit of threads): disconnected here, so the stall still
                    // ends; thrown on, it would end this check, and no stall of any route would end again
                    LOG.error("sftp supplier={}: no thread to disconnect the stalled session on ({}); disconnected by"
                            + " the check itself", watch.supplier, e.toString());
                    disconnectHere(watch);
                }
            }
        }
    }

    /** The check ends with the context. */
    @Override
    public synchronized void destroy() {
        destroyed = true;
        if (checks != null) {
            checks.shutdownNow();
        }
    }

    /** The operations of a file consumer: Camel keeps them in a protected field and offers no getter. */
    private static GenericFileOperations<?> operationsOf(Consumer consumer) {
        if (!(consumer instanceof GenericFileConsumer<?>)) {
            return null;
        }
        try {
            Field field = GenericFileConsumer.class.getDeclaredField("operations");
            field.setAccessible(true);
            return (GenericFileOperations<?>) field.get(consumer);
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.warn("the SFTP listing is not watched for stalls: Camel's consumer keeps its operations elsewhere ({})",
                    e.toString());
            return null;
        }
    }

    /**
     * Disconnects the session of an abandoned watch on a thread of its own: a disconnect that blocks (Camel's
     * {@code forceDisconnect} waits for the lock a hung listing holds) must not stop the check of every other route.
     */
    private void disconnectApart(Watch watch) {
        disconnectThreads.newThread(() -> disconnectHere(watch)).start();
    }

    private static void disconnectHere(Watch watch) {
        try {
            disconnect(watch.operations);
        } catch (RuntimeException e) {
            LOG.warn("sftp supplier={}: the stalled session could not be disconnected: {}", watch.supplier,
                    SftpPollStrategy.describe(e));
        }
    }

    /** The threads sessions are disconnected on (a test's, which fail to be made). */
    void disconnectThreads(ThreadFactory threads) {
        this.disconnectThreads = threads;
    }

    /**
     * Disconnects the SSH session of {@code operations} without waiting for the lock a hung operation holds, so that
     * operation ends with an exception; Camel's {@code forceDisconnect} where its session cannot be reached (which
     * waits for a hung listing's lock, so it ends a stalled download only).
     */
    static void disconnect(GenericFileOperations<?> operations) {
        if (operations instanceof SftpOperations sftp) {
            try {
                Field field = SftpOperations.class.getDeclaredField("session");
                field.setAccessible(true);
                if (field.get(sftp) instanceof Session session) {
                    session.disconnect();
                }
                return;
            } catch (ReflectiveOperationException | RuntimeException e) {
                LOG.warn("the stalled SSH session is disconnected through Camel, which waits for a hung listing: Camel"
                        + " keeps its session elsewhere ({})", e.toString());
            }
        }
        if (operations instanceof RemoteFileOperations<?> remote) {
            remote.forceDisconnect();
        }
    }

    /** One transfer watched; closed when it is over, whatever its outcome. */
    final class Watch implements AutoCloseable {
        private static final int OPEN = 0;
        private static final int CLOSED = 1;
        private static final int ABANDONED = 2;

        private final String supplier;
        private final String what;
        private final GenericFileOperations<?> operations;
        private volatile long lastProgress = System.nanoTime();
        /** Open, then closed by its transfer or abandoned by the watchdog, whichever comes first: never both. */
        private final AtomicInteger state = new AtomicInteger(OPEN);

        private Watch(String supplier, String what, GenericFileOperations<?> operations) {
            this.supplier = supplier;
            this.what = what;
            this.operations = operations;
        }

        /** Bytes arrived: the time limit starts again. */
        void progress() {
            lastProgress = System.nanoTime();
        }

        /**
         * Whether the watchdog ended this transfer, disconnecting its session; once the watch is closed, the answer
         * stays.
         */
        boolean abandoned() {
            return state.get() == ABANDONED;
        }

        /** Abandons the transfer unless it was closed first; whether it did. */
        private boolean abandon() {
            if (!state.compareAndSet(OPEN, ABANDONED)) {
                return false;
            }
            LOG.warn("sftp supplier={} stalled: nothing came from the server for {} ({}) during {}; abandoned, the"
                    + " session is disconnected and the next poll logs in again", supplier, limit, SETTING, what);
            return true;
        }

        /** The transfer is over: the watchdog no longer abandons it, unless it did already ({@link #abandoned}). */
        @Override
        public void close() {
            state.compareAndSet(OPEN, CLOSED);
            watches.remove(this);
        }
    }
}
