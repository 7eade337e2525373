package dev.ingestor.source.file;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import org.apache.camel.cluster.CamelClusterMember;
import org.apache.camel.cluster.CamelClusterService;
import org.apache.camel.support.cluster.AbstractCamelClusterView;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Camel's view of one namespace (one route id) over its lease row ({@link RouteLeases}): this instance leads while
 * it holds the lease. Every {@code renewal} the lease is taken or renewed; leadership is gained when that succeeds
 * and lost when another instance holds the lease, or when no renewal succeeded for {@code lease - renewal} (the
 * database gone, say): so this instance stops before the lease ends in the database and another may take it. A
 * second task checks that deadline, so a renewal that hangs on the database does not hold leadership beyond it.
 * {@link #leadsNow()} reads the deadline on every call, for a consumer that must not poll without the lease. A
 * clean stop gives the lease back at once.
 */
final class LeaseClusterView extends AbstractCamelClusterView {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseClusterView.class);

    private final RouteLeases leases;
    private final String owner;
    /**
     * This run of the view's name on its lease row (each start a new one): a renewal that began before a stop can
     * then never renew or give back the lease of the view started again.
     */
    private UUID token = UUID.randomUUID();
    private final Duration lease;
    private final Duration renewal;
    private final BiConsumer<String, Boolean> onLeadership;
    private final CamelClusterMember local;
    private ScheduledExecutorService executor;
    /** Whether the route exists, so the lease may be tried for ({@link #arm}). */
    private boolean armed;
    private boolean renewing;

    // guarded by this
    private boolean leader;
    /** System.nanoTime() up to which the last confirmed renewal lets this instance lead. */
    private long leadsUntilNanos;
    /** The holder another instance's lease names, while it holds it. */
    private String otherHolder;
    /** Failed renewals in a row, for one line when they start and one when they end. */
    private int failures;
    /** Leadership gained and not taken up (the route did not start), in a row; reset when it is taken up. */
    private int notTakenUp;
    /** System.nanoTime() before which the lease is not tried for again, after it was not taken up. */
    private long holdOffUntilNanos;
    /** Stops so far: a renewal that began before a stop neither leads nor lets go after it. */
    private long stops;

    LeaseClusterView(CamelClusterService service, String namespace, RouteLeases leases, String owner, Duration lease,
            Duration renewal, BiConsumer<String, Boolean> onLeadership) {
        super(service, namespace);
        this.leases = leases;
        this.owner = owner;
        this.lease = lease;
        this.renewal = renewal;
        this.onLeadership = onLeadership;
        this.local = new Member(true);
    }

    @Override
    protected synchronized void doStart() throws Exception {
        token = UUID.randomUUID();
        executor = getCamelContext().getExecutorServiceManager().newScheduledThreadPool(this,
                "route-lease-" + getNamespace(), 2);
        if (armed) {
            scheduleRenewals();
        }
        long check = Math.max(50, Math.min(1000, renewal.toMillis() / 4));
        executor.scheduleAtFixedRate(() -> stayScheduled("deadline check", this::checkDeadline), check, check,
                TimeUnit.MILLISECONDS);
    }

    @Override
    protected void doStop() throws Exception {
        synchronized (this) {
            if (executor != null) {
                getCamelContext().getExecutorServiceManager().shutdownNow(executor);
                executor = null;
                renewing = false;
            }
            stops++;
            notTakenUp = 0;
            failures = 0;
        }
        boolean wasLeader;
        UUID run;
        synchronized (this) {
            wasLeader = leader;
            leader = false;
            run = token;
        }
        if (wasLeader) {
            try {
                leases.release(getNamespace(), run);
                LOG.info("instance={} no longer leads route={}: stopped, lease given back", owner, getNamespace());
            } catch (RuntimeException e) {
                LOG.warn("instance={} no longer leads route={}: stopped, but the lease could not be given back ({});"
                        + " another instance takes over when it runs out", owner, getNamespace(), e.toString());
            }
            changed(false, run);
        }
    }

    /**
     * Lets the view try for the lease: called once the Camel context has started (SupplierRouteInstaller.armLeases).
     * Camel's ClusteredRoutePolicy makes this view and registers its listener as it initialises the route, and
     * starts the route on a leadership event once the context has started.
     */
    synchronized void arm() {
        armed = true;
        if (executor != null) {
            scheduleRenewals();
        }
    }

    private synchronized void scheduleRenewals() {
        if (!renewing) {
            renewing = true;
            executor.scheduleWithFixedDelay(() -> stayScheduled("renewal", this::renew), 0, renewal.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
    }

    /** Whether this instance holds the lease now: gained, not lost, and its last renewal still good. */
    synchronized boolean leadsNow() {
        return leader && System.nanoTime() - leadsUntilNanos < 0;
    }

    private void renew() {
        long started = System.nanoTime();
        long stopsBefore;
        UUID run;
        synchronized (this) {
            if (notTakenUp > 0 && started - holdOffUntilNanos < 0) {
                return;
            }
            stopsBefore = stops;
            run = token;
        }
        String holder;
        try {
            holder = leases.takeOrRenew(getNamespace(), owner, run, lease);
        } catch (RuntimeException | Error e) {
            renewalFailed(e);
            return;
        }
        Boolean change = null;
        boolean stopped = false;
        synchronized (this) {
            if (failures > 0) {
                LOG.info("instance={} reaches the leases of route={} again after {} failed attempt(s)", owner,
                        getNamespace(), failures);
                failures = 0;
            }
            if (stops != stopsBefore) {
                // stopped while this renewal ran: the stop has let go of the lease, and this must not take it up
                // (a view started again since renews under a token of its own)
                stopped = holder == null;
            } else if (holder == null) {
                // the database's expiry is at least the call's start plus the lease; give up a renewal before it
                leadsUntilNanos = started + lease.toNanos() - renewal.toNanos();
                otherHolder = null;
                if (!leader) {
                    leader = true;
                    change = true;
                    LOG.info("instance={} leads route={} (lease {}, renewed every {})", owner, getNamespace(), lease,
                            renewal);
                }
            } else {
                otherHolder = holder;
                if (leader) {
                    leader = false;
                    change = false;
                    LOG.info("instance={} no longer leads route={}: instance={} holds its lease", owner,
                            getNamespace(), holder);
                }
            }
        }
        if (stopped) {
            releaseQuietly(run);
            return;
        }
        if (change != null && stillRunning(stopsBefore)) {
            changed(change, run);
        }
    }

    /** No stop since {@code stopsBefore}: what a renewal decided may still be told. */
    private synchronized boolean stillRunning(long stopsBefore) {
        return stops == stopsBefore;
    }

    private void renewalFailed(Throwable e) {
        synchronized (this) {
            failures++;
            if (failures == 1) {
                LOG.warn("instance={} cannot reach the lease of route={} ({}); {}", owner, getNamespace(), e.toString(),
                        leader
                                ? "it stops leading unless a renewal succeeds within " + lease.minus(renewal)
                                : "trying again every " + renewal);
            }
        }
        checkDeadline();
    }

    private void checkDeadline() {
        UUID run;
        synchronized (this) {
            if (!leader || System.nanoTime() - leadsUntilNanos < 0) {
                return;
            }
            leader = false;
            LOG.warn("instance={} no longer leads route={}: its lease could not be renewed for {}; it stops polling"
                    + " before the lease runs out for the other instances", owner, getNamespace(),
                    lease.minus(renewal));
            run = token;
        }
        changed(false, run);
    }

    /**
     * Tells Camel's listeners (the clustered route policy starts or stops the route) and the gauge. Leadership gained
     * but not taken up (a listener failed: the route did not start, SftpLeadership) gives the lease back at once, so
     * that another instance may lead the route, and this one tries for it again after a wait that doubles with each
     * such failure in a row, from one renewal up to the lease.
     */
    private void changed(boolean leading, UUID run) {
        try {
            tell(leading);
            if (leading) {
                synchronized (this) {
                    notTakenUp = 0;
                }
            }
        } catch (RuntimeException | Error e) {
            if (!leading) {
                LOG.error("instance={} could not tell route={} that it no longer leads it", owner, getNamespace(), e);
                return;
            }
            long wait;
            int inARow;
            synchronized (this) {
                inARow = ++notTakenUp;
                wait = renewal.toNanos();
                for (int i = 1; i < inARow && wait < lease.toNanos(); i++) {
                    wait *= 2;
                }
                wait = Math.min(wait, lease.toNanos());
                holdOffUntilNanos = System.nanoTime() + wait;
            }
            if (inARow == 1) {
                LOG.error("instance={} could not tell route={} that it leads it; it gives the lease back and tries"
                        + " again in {}", owner, getNamespace(), Duration.ofNanos(wait), e);
            } else {
                LOG.error("instance={} could not tell route={} that it leads it, {} times in a row ({}); it gives the"
                        + " lease back and tries again in {}", owner, getNamespace(), inARow, e.toString(),
                        Duration.ofNanos(wait));
            }
            giveBack(run);
        }
    }

    /** The gauge first, then Camel's listeners, which are told even when the gauge's update failed. */
    private void tell(boolean leading) {
        try {
            onLeadership.accept(getNamespace(), leading);
        } finally {
            fireLeadershipChangedEvent(getLeader().orElse(null));
        }
    }

    /** Leadership gained but not taken up: no longer led here, and the lease free for any instance. */
    private void giveBack(UUID run) {
        synchronized (this) {
            leader = false;
        }
        try {
            releaseQuietly(run);
        } finally {
            changed(false, run);
        }
    }

    private void releaseQuietly(UUID run) {
        try {
            leases.release(getNamespace(), run);
        } catch (RuntimeException e) {
            LOG.warn("instance={} could not give the lease of route={} back ({}); another instance may take it once"
                    + " it runs out", owner, getNamespace(), e.toString());
        }
    }

    /**
     * Runs a scheduled task so that its schedule goes on whatever it throws: an executor never runs a task again
     * once it has thrown, and leadership would then never be renewed, gained or given up here.
     */
    private void stayScheduled(String task, Runnable body) {
        try {
            body.run();
        } catch (RuntimeException | Error e) {
            LOG.error("instance={}: the lease {} of route={} failed", owner, task, getNamespace(), e);
        }
    }

    @Override
    public synchronized Optional<CamelClusterMember> getLeader() {
        if (leadsNow()) {
            return Optional.of(local);
        }
        return otherHolder == null ? Optional.empty() : Optional.of(new Member(false));
    }

    @Override
    public CamelClusterMember getLocalMember() { return local; }

    @Override
    public synchronized List<CamelClusterMember> getMembers() {
        // the instances that do not hold the lease leave no trace in the database: only the holder is known
        return otherHolder == null ? List.of(local) : List.of(local, new Member(false));
    }

    private final class Member implements CamelClusterMember {

        private final boolean isLocal;
        private final String id;

        Member(boolean isLocal) {
            this.isLocal = isLocal;
            this.id = isLocal ? owner : otherHolder;
        }

        @Override
        public boolean isLeader() { return isLocal ? leadsNow() : !leadsNow() && id.equals(otherHolder); }

        @Override
        public boolean isLocal() { return isLocal; }

        @Override
        public String getId() { return id; }
    }
}
