package dev.ingestor.source.file;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which files of one SFTP route have stopped changing, judged by this instance's clock across polls: a file is
 * settled once an earlier poll, at least {@code min-age} ago by {@link System#nanoTime}, listed it with the same size
 * and time of change as the poll under way. A file whose size or time of change differs from the last listing starts
 * again. The server's clock plays no part: its time of change is only compared with itself, so a server whose clock
 * runs behind ours does not make a file still being uploaded look old, and one whose clock runs ahead (or a time of
 * change in the future) does not make a complete file look new.
 *
 * <p>Kept in memory, per route, on the instance that polls (the one holding the route's lease, {@link
 * SftpLeadership}). Another instance that takes the lease over starts with none, so the files listed then wait one
 * more {@code min-age} there; nothing is taken before it is settled.
 *
 * <p>One small entry per listed file, by its name relative to the polled folder. The poll strategy ends each poll
 * ({@link #endPoll}): a poll that saw the whole folder forgets every file it did not list; one that stopped at its
 * limit of files forgets the unlisted files it had found settled (taken by then, or past the limit this time: those
 * wait one more {@code min-age}) and the ones no poll listed for {@link #FORGET_AFTER_POLLS} polls, so files that went
 * away do not pile up while the folder's backlog outlasts every poll.
 *
 * <p>Used from the route's poll thread only: the listing, the filter and the poll strategy of one poll run in that
 * thread, and the route's scheduler runs one poll after another.
 */
final class SettledFiles {

    /** Polls after which a file no poll listed is forgotten, even by polls that stopped at their limit. */
    static final int FORGET_AFTER_POLLS = 100;

    private final long minAgeNanos;
    private final Map<String, Sighting> seen = new ConcurrentHashMap<>();
    /** The poll under way, counted from 1; 0 before the first. */
    private final AtomicInteger poll = new AtomicInteger();

    /** How a file was listed: its size and time of change, since when this route sees them, and its last poll. */
    private static final class Sighting {
        private final long size;
        private final long modified;
        private final long since;
        private int lastPoll;
        /** Found settled by a poll: handed to the route for the read lock. */
        private boolean offered;

        private Sighting(long size, long modified, long since, int lastPoll) {
            this.size = size;
            this.modified = modified;
            this.since = since;
            this.lastPoll = lastPoll;
        }
    }

    SettledFiles(Duration minAge) {
        if (minAge.isZero() || minAge.isNegative()) {
            throw new IllegalArgumentException("a min-age of " + minAge + " takes every file at first sight");
        }
        this.minAgeNanos = minAge.toNanos();
    }

    /** A poll of the route begins. */
    void beginPoll() {
        poll.incrementAndGet();
    }

    /**
     * Whether the file {@code name}, listed now with {@code size} and {@code modified}, is settled: an earlier
     * listing at least min-age ago by this instance's clock saw the same size and time of change. Remembered either
     * way.
     */
    boolean settled(String name, long size, long modified) {
        long now = System.nanoTime();
        int current = poll.get();
        Sighting sighting = seen.get(name);
        if (sighting == null || sighting.size != size || sighting.modified != modified) {
            seen.put(name, new Sighting(size, modified, now, current));
            return false;
        }
        sighting.lastPoll = current;
        if (now - sighting.since < minAgeNanos) {
            return false;
        }
        sighting.offered = true;
        return true;
    }

    /**
     * The poll under way ended without failing; {@code complete}: it listed the whole folder (it did not stop at its
     * limit of files). Forgets the files that are gone, as the class comment says.
     */
    void endPoll(boolean complete) {
        int current = poll.get();
        seen.values().removeIf(s -> s.lastPoll != current
                && (complete || s.offered || current - s.lastPoll >= FORGET_AFTER_POLLS));
    }

    /** How many files this route remembers. */
    int remembered() {
        return seen.size();
    }
}
