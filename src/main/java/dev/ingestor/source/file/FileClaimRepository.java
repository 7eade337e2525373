package dev.ingestor.source.file;

import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import dev.ingestor.config.InstanceId;
import dev.ingestor.intake.IntakeSettings;
import org.apache.camel.CamelContext;
import org.apache.camel.Exchange;
import org.apache.camel.ServiceStatus;
import org.apache.camel.spi.IdempotentRepository;
import org.apache.camel.support.service.ServiceSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.dao.DataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * Claims on inbox and SFTP files, used as the file consumer's idempotent read lock (and by {@link
 * SftpClaimReadLock}) so that several instances polling the same folder never take the same file. A claim carries its
 * owner and the time it was taken or last renewed; one older than the lease belongs to an instance that died mid-file
 * (or is cut off from the database) and is taken over, so no file is blocked for ever.
 *
 * <p>A claim's owner is this instance's id and a token of this run, so a run never mistakes another process's
 * claim for its own (not even one started with the same id while this one still runs); at start an instance lets
 * go of what its earlier runs held ({@code Housekeeping.releaseOwn}). This run's own claim is taken over at once
 * unless this run holds it (between a claim and its release). Such a claim is left over: its release failed while
 * the database was away, or the database stored the claim but the answer never came back. Waiting out the lease
 * would hold that file, or the next file of that name, back for minutes. A hold neither let go of nor renewed for
 * the lease is one Camel never let go (a download that failed after the read lock was taken, on a route stopped
 * since): the database decides again, as it does for another instance's claim after the lease.
 *
 * <p>The claims this run holds for a started route are renewed every third of the lease ({@link #renewHeld}), so a
 * claim lapses only when its instance is gone or cut off from the database, or its route stopped: not while its file
 * waits in the supplier's queue behind many others (for hours while the database is away and each file before it
 * waits out its redeliveries), nor while a large file is read.
 *
 * <p>The exchange that took a claim (a file drop's or an SFTP route's) keeps its hold, and only its release lets go
 * of it ({@link #remove(Exchange, String)}): Camel also lets go after takes that were refused and for files it never
 * started, and those must not end another take's claim of the same name. (Camel's default exchange factory, which
 * makes a new exchange each time, is assumed: a pooled one would reuse the exchange before its delayed release.)
 */
@Component("fileClaimRepository")
class FileClaimRepository extends ServiceSupport implements IdempotentRepository {

    private static final Logger LOG = LoggerFactory.getLogger(FileClaimRepository.class);

    private final JdbcTemplate jdbc;
    private final String owner;
    private final Duration lease;
    /** The claims this run holds, taken and not yet released. */
    private final Map<String, Hold> held = new ConcurrentHashMap<>();
    /** Whether a route is started, by its id; every route is, without a CamelContext (tests). */
    private Predicate<String> routeStarted = routeId -> true;
    /** When the last round of renewals started ({@link System#nanoTime}), or null before the first. */
    private Long lastRound;

    /**
     * A claim this run holds, since {@code since} ({@link System#nanoTime}); each hold its own object, told apart by
     * identity.
     */
    private static final class Hold {
        private final String key;
        private final long since;
        /** The route whose exchange took it, or null when taken outside an exchange. */
        private final String routeId;
        /** When its row was last renewed, or taken ({@link System#nanoTime}). */
        private volatile long renewed;

        Hold(String key, long since, String routeId) {
            this.key = key;
            this.since = since;
            this.routeId = routeId;
            this.renewed = since;
        }
    }

    /** The exchange property naming the hold a file's exchange took, so that only its own release lets go of it. */
    static final String HOLD_PROPERTY = "IngestorFileClaimHold";

    public FileClaimRepository(JdbcTemplate jdbc, InstanceId instanceId, IntakeSettings intake) {
        this.jdbc = jdbc;
        this.owner = ownerOf(instanceId.value());
        this.lease = intake.getClaimLease();
    }

    /** Holds are renewed only while the route whose exchange took them is started. */
    @Autowired
    void renewWhileRoutesRun(CamelContext camel) {
        routeStarted = routeId -> {
            ServiceStatus status = camel.getRouteController().getRouteStatus(routeId);
            return status != null && status.isStarted();
        };
    }

    /** The owner this run's claims carry: the instance's id, a slash, this run's token. */
    static String ownerOf(String instance) {
        return instance + "/" + UUID.randomUUID();
    }

    /** How long a claim holds: one older is taken over by any run. */
    Duration lease() {
        return lease;
    }

    /**
     * Forgets a hold of this run taken longer ago than the lease, in memory only: a claim whose file went without a
     * release (a failed download, then the file taken elsewhere or deleted). Its row, no longer renewed, is any run's
     * to take over once it is older than the lease, and recovery removes it.
     */
    void forgetExpired(String key) {
        long now = System.nanoTime();
        held.computeIfPresent(key, (k, hold) -> now - hold.since > lease.toNanos() ? null : hold);
    }

    /** Whether this run holds {@code key}: taken, and not yet released or forgotten. */
    boolean holds(String key) {
        return held.containsKey(key);
    }

    /** The route whose exchange holds this run's claim of {@code key}, or null. */
    String routeHolding(String key) {
        Hold hold = held.get(key);
        return hold == null ? null : hold.routeId;
    }

    /**
     * Whether this run holds a claim of {@code key} that it took at {@code nanos} ({@link System#nanoTime}) or later:
     * a claim taken before belongs to an earlier take of the key, such as a finished file's delayed release.
     */
    boolean holdsSince(String key, long nanos) {
        Hold hold = held.get(key);
        return hold != null && hold.since - nanos >= 0;
    }

    /**
     * Renews the claims this run holds for a route that is started (routes/source-file-drop.camel.yaml runs it every
     * {@link IntakeSettings#getClaimRenewal()}): taken and not yet let go of, queued or being read. A hold whose route
     * stopped (removed, or an SFTP route whose lead went elsewhere) is no longer renewed, and lapses after the lease. A
     * hold whose exchange an Error abandoned on a running route is renewed until this instance restarts: it logged the
     * Error, and its restart lets go of its earlier runs' claims. A hold held since before the last round whose row
     * is no longer this run's is reported at WARN: another instance took the file over while this one could not renew.
     *
     * @return how many claims were renewed; 0 when the database is away (the next round renews them)
     */
    public int renewHeld() {
        long round = System.nanoTime();
        Long previous = lastRound;
        lastRound = round;
        List<Hold> live = held.values().stream()
                .filter(hold -> hold.routeId == null || routeStarted.test(hold.routeId)).toList();
        if (live.isEmpty()) {
            return 0;
        }
        String[] keys = live.stream().map(hold -> hold.key).toArray(String[]::new);
        Set<String> renewed;
        try {
            renewed = new HashSet<>(jdbc.query(connection -> {
                PreparedStatement statement = connection.prepareStatement("UPDATE file_claim SET claimed_at = now()"
                        + " WHERE owner = ? AND claim_key = ANY (?) RETURNING claim_key");
                statement.setString(1, owner);
                statement.setArray(2, connection.createArrayOf("text", keys));
                return statement;
            }, (row, n) -> row.getString(1)));
        } catch (DataAccessException e) {
            LOG.warn("the {} file claims this instance holds could not be renewed; the next round tries again before"
                    + " they lapse: {}", keys.length, e.getMessage());
            return 0;
        }
        int lost = 0;
        for (Hold hold : live) {
            if (renewed.contains(hold.key)) {
                hold.renewed = round;
            } else if (previous != null && hold.since - previous < 0 && held.get(hold.key) == hold) {
                lost++;
            }
        }
        if (lost > 0) {
            LOG.warn("{} file claim(s) this instance still holds are no longer its own: another instance took them over"
                    + " while they could not be renewed (the database away for most of ingestor.intake.claim-lease),"
                    + " or they were deleted by hand; such a file may be taken twice, and its content key keeps it one"
                    + " job", lost);
        }
        LOG.debug("renewed {} of the {} file claims this instance holds", renewed.size(), keys.length);
        return renewed.size();
    }

    /** This run's name on its claims. */
    String owner() {
        return owner;
    }

    /**
     * Refused: a claim taken by the key alone would be let go of by the key alone, which this repository ignores
     * ({@link #remove(String)}), and would then hold its file for the lease. Camel takes a claim by the key alone as
     * an idempotent consumer ({@code idempotent=true}, which {@code noop=true} implies); a route names this repository
     * only as its idempotent read lock's, with {@code idempotent=false}.
     */
    @Override
    public boolean add(String key) {
        throw new IllegalStateException("fileClaimRepository holds claims for an idempotent read lock and is not an"
                + " idempotent consumer's repository: set idempotent=false on the file endpoint that names it");
    }

    /**
     * Camel's idempotent read locks claim a file with the exchange that will take it, and let go of the claim with the
     * same exchange: at the file's end (delayed for a moment), and also after a take that did not begin, refused or
     * not. The exchange keeps its hold, so that a refused take lets go of nothing: a finished file's claim, waiting for
     * its delayed release, stays until that release, and that release cannot let go of a later take's claim.
     */
    @Override
    public boolean add(Exchange exchange, String key) {
        Hold hold = take(key, exchange.getFromRouteId());
        if (hold == null) {
            return false;
        }
        exchange.setProperty(HOLD_PROPERTY, hold);
        return true;
    }

    /**
     * The claim of {@code key} taken for this run (for an exchange of {@code routeId}, or null), or null when it is
     * held, by this run or another. This run's hold that has been neither released nor renewed for the lease is one
     * Camel never let go, and is taken anew.
     */
    private Hold take(String key, String routeId) {
        Hold mine = new Hold(key, System.nanoTime(), routeId);
        Hold holding = held.compute(key,
                (k, hold) -> hold == null || mine.since - hold.renewed > lease.toNanos() ? mine : hold);
        if (holding != mine) {
            return null;
        }
        boolean claimed = false;
        try {
            claimed = jdbc.update("INSERT INTO file_claim (claim_key, owner) VALUES (?, ?)"
                    + " ON CONFLICT (claim_key) DO UPDATE SET owner = EXCLUDED.owner, claimed_at = now()"
                    + " WHERE file_claim.owner = EXCLUDED.owner"
                    + " OR file_claim.claimed_at < now() - make_interval(secs => ?)", key, owner,
                    lease.toMillis() / 1000.0) == 1;
            return claimed ? mine : null;
        } finally {
            if (!claimed) {
                held.remove(key, mine);
            }
        }
    }

    @Override
    public boolean contains(String key) {
        return Boolean.TRUE.equals(jdbc.queryForObject(
                "SELECT EXISTS (SELECT 1 FROM file_claim WHERE claim_key = ?)", Boolean.class, key));
    }

    /**
     * Lets go of this run's claim of {@code key}, whichever take holds it: for a take whose exchange was abandoned
     * (the SFTP read lock's file listed again after a failed download, a file drop's take that a failed poll
     * stopped).
     */
    boolean release(String key) {
        // not held from here on, even when the delete fails: the row left behind is then taken over at this
        // instance's next claim of the key
        try {
            return deleteOwn(key);
        } finally {
            held.remove(key);
        }
    }

    /** Deletes the claim of {@code key} if it is this run's: after a lease takeover the file is someone else's. */
    private boolean deleteOwn(String key) {
        return jdbc.update("DELETE FROM file_claim WHERE claim_key = ? AND owner = ?", key, owner) == 1;
    }

    /**
     * Lets go of nothing. Camel's file consumer calls this, without the exchange, for each file of a poll that it did
     * not start (a refused take among them, a take whose file was still changing, the files left when a listing failed
     * or the route stopped) or that was past the poll's limit: none holds a claim by then, and a claim of the key that
     * this run holds is another take's, such as a finished file's waiting for its delayed release.
     */
    @Override
    public boolean remove(String key) {
        return false;
    }

    /** Whether {@code exchange} took this run's claim of {@code key} and has not let go of it. */
    boolean took(Exchange exchange, String key) {
        return exchange.getProperty(HOLD_PROPERTY) instanceof Hold hold && hold.key.equals(key);
    }

    /**
     * Lets go of the claim {@code exchange} took ({@link #add(Exchange, String)}), once; nothing when it took none (a
     * refused take) or when its hold is no longer this run's hold of the key (forgotten or taken anew after the lease).
     */
    @Override
    public boolean remove(Exchange exchange, String key) {
        if (!took(exchange, key)) {
            return false;
        }
        Hold hold = (Hold) exchange.removeProperty(HOLD_PROPERTY);
        if (held.get(key) != hold) {
            return false;
        }
        try {
            return deleteOwn(key);
        } finally {
            held.remove(key, hold);
        }
    }

    @Override
    public boolean confirm(String key) {
        return true;
    }

    @Override
    public void clear() {
        try {
            jdbc.update("DELETE FROM file_claim WHERE owner = ?", owner);
        } finally {
            held.clear();
        }
    }
}
