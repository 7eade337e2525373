package dev.ingestor.source.file;

import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import org.apache.camel.spi.IdempotentRepository;
import org.apache.camel.support.service.ServiceSupport;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.context.annotation.Scope;
import org.springframework.stereotype.Component;

/**
 * One file route's marks of its files in progress (Camel's {@code inProgressRepository}, one per endpoint), which
 * also know the marks the poll under way has set. Camel marks a file as it lists it, and lets go of the mark when the
 * file's exchange is done, when the file is not taken, and after a poll that failed with an exception. After a poll
 * that failed with an {@link Error} it lets go of none, so {@link FilePollsThroughErrors} asks this class to let go of
 * the marks that poll set on files no exchange is still taking; a mark left behind would keep its file from this
 * instance until a restart. A file still under way keeps its mark until its exchange is done, as in Camel: let go
 * earlier, the file would be listed again while it is still being taken. A route that hands its files to other
 * threads says so for each file ({@link FileHandOff}, on the poll thread just before), so the marks know which of
 * the poll's files went on and which the Error stopped.
 * <p>
 * Unbounded, where Camel's default holds 50,000 marks and drops the oldest: a mark dropped while its file is still in
 * progress lets the file be listed again. The marks are as many as the files listed and not yet done, at most a poll's
 * {@code maxMessagesPerPoll} more than the files queued on the route, and those a failed poll left marked because
 * their files might still be under way ({@link FilePollsThroughErrors}).
 */
@Component(InProgressMarks.NAME)
@Scope(ConfigurableBeanFactory.SCOPE_PROTOTYPE)
public class InProgressMarks extends ServiceSupport implements IdempotentRepository {

    static final String NAME = "inProgressMarks";

    private final Set<String> marks = ConcurrentHashMap.newKeySet();
    /**
     * The marks set since the poll under way started and not handed off to other threads (one poll at a time per
     * route: one consumer, one scheduler).
     */
    private final Set<String> setThisPoll = ConcurrentHashMap.newKeySet();
    /** Whether a poll is under way, so that marks are not kept track of for a route scheduled otherwise. */
    private volatile boolean polling;
    /**
     * The marks the poll under way has set: Camel marks each file it lists to be taken, and only those, so this is
     * how many files its listing gathered (and stops at, at {@code maxMessagesPerPoll}). Set and read by the poll
     * thread alone.
     */
    private int listedThisPoll;
    /** When the poll under way started ({@link System#nanoTime}). */
    private volatile long pollStartedAt;
    /** Whether the route says when it hands a file off: from its first hand-off on. */
    private volatile boolean recordsHandOffs;

    /** The one scheduler whose polls set these marks. */
    private Object owner;

    /** Ties these marks to {@code scheduler}; refused for a second one (the bean is a prototype, one per endpoint). */
    synchronized void belongTo(Object scheduler) {
        if (owner != null && owner != scheduler) {
            throw new IllegalStateException("these in-progress marks belong to another route's scheduler already:"
                    + " name #" + NAME + " once per endpoint, as a prototype");
        }
        owner = scheduler;
    }

    /** A poll starts: the marks set from here on are its own. */
    void pollStarts() {
        setThisPoll.clear();
        listedThisPoll = 0;
        pollStartedAt = System.nanoTime();
        polling = true;
    }

    /**
     * How many files the poll under way listed to be taken: not those the filter let through that Camel then left (a
     * done file, a file whose done file has not come, a file still in progress from an earlier poll). -1 when no poll
     * is under way.
     */
    int listedThisPoll() {
        return polling ? listedThisPoll : -1;
    }

    /** When the poll under way, or the last one, started ({@link System#nanoTime}). */
    long pollStartedAt() {
        return pollStartedAt;
    }

    /**
     * The exchange of the file marked {@code key} goes on to other threads: if the poll fails now, it may still be
     * under way. Called on the poll thread, before the hand-off.
     */
    void handedOff(String key) {
        recordsHandOffs = true;
        setThisPoll.remove(key);
    }

    /**
     * Whether the route has said when it hands files off, so that a file of a failed poll that was not handed off is
     * known not to be under way. Before the route's first hand-off, it is not known.
     */
    boolean recordsHandOffs() {
        return recordsHandOffs;
    }

    /** The poll ended as it should: Camel let go of the marks it had to. */
    void pollEnds() {
        polling = false;
        setThisPoll.clear();
    }

    /**
     * After a poll that failed with an Error: lets go of the marks it set on files it did not hand off and that {@code
     * underWay} says no exchange is still taking, as Camel does after an exception. {@code underWay} may let go of
     * what else holds such a file (its claim); it must not throw.
     *
     * @return how many marks were let go of
     */
    int releaseNotUnderWay(Predicate<String> underWay) {
        polling = false;
        int released = 0;
        for (Iterator<String> keys = setThisPoll.iterator(); keys.hasNext();) {
            String key = keys.next();
            keys.remove();
            if (!underWay.test(key) && marks.remove(key)) {
                released++;
            }
        }
        return released;
    }

    @Override
    public boolean add(String key) {
        boolean added = marks.add(key);
        if (added && polling) {
            setThisPoll.add(key);
            listedThisPoll++;
        }
        return added;
    }

    @Override
    public boolean contains(String key) {
        return marks.contains(key);
    }

    @Override
    public boolean remove(String key) {
        return marks.remove(key);
    }

    @Override
    public boolean confirm(String key) {
        return true;
    }

    @Override
    public void clear() {
        marks.clear();
    }
}
