package dev.ingestor.intake;

import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import org.apache.camel.Header;
import org.apache.camel.language.simple.Simple;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.stereotype.Component;
import org.springframework.transaction.event.TransactionalEventListener;

/**
 * Content keys this instance has seen committed, each with the id of its import job: a bounded, in-memory
 * answer to "were these bytes taken before?" that lets a repeated push be answered without storing its bytes
 * or opening a transaction.
 *
 * <p>A key enters only AFTER the transaction that wrote it (or found it) has committed. Entering it earlier
 * would let a key whose transaction then rolled back be answered as a duplicate of a job that does not exist,
 * and the content would never be taken. What is here may be stale the other way round (retention deleted the
 * job since), so a reader checks the job row before it answers from an entry, and {@link #forget}s it if gone.
 * Each instance has its own: another instance's keys reach it through the database on the ordinary path.
 *
 * <p>At most {@link #CAPACITY} keys are held (Caffeine's size bound; which key makes room is its frequency and
 * recency policy, a key pushed again and again tends to stay). A key that is not here is no error: the push goes
 * the ordinary way, and intake's key in the database answers it.
 */
@Component("committedKeys")
public class CommittedKeys {

    /** About 200 bytes an entry: a few MiB of heap for the keys of the last busy hours. */
    static final int CAPACITY = 20_000;

    /** A key taken or found in a transaction, with its job: entered once that transaction has committed. */
    record Taken(String key, UUID jobId) {
    }

    private final Cache<String, UUID> jobs;
    private final ApplicationEventPublisher events;

    @Autowired
    public CommittedKeys(ApplicationEventPublisher events) {
        this(CAPACITY, ForkJoinPool.commonPool(), events);
    }

    /** At most {@code capacity} keys; {@code maintenance} runs the evictions (Caffeine's default: the common pool). */
    CommittedKeys(int capacity, Executor maintenance, ApplicationEventPublisher events) {
        this.jobs = Caffeine.newBuilder().maximumSize(capacity).executor(maintenance).build();
        this.events = events;
    }

    /**
     * Remembers the key and its job once the surrounding transaction commits; nothing if it rolls back, and
     * nothing outside a transaction (then there is no commit to wait for, and no entry is safe).
     */
    public void rememberAfterCommit(@Header(IntakeHeaders.KEY) String key, @Simple("${body.job.id}") UUID jobId) {
        if (key != null && jobId != null) {
            events.publishEvent(new Taken(key, jobId));
        }
    }

    /** After the commit only: without a transaction ({@code fallbackExecution} false) the event is dropped. */
    @TransactionalEventListener
    void remember(Taken taken) {
        jobs.put(taken.key(), taken.jobId());
    }

    /** The job of a committed key, or null when this instance does not know the key (or forgot it). */
    public UUID jobOf(String key) {
        return jobs.getIfPresent(key);
    }

    public void forget(String key) {
        jobs.invalidate(key);
    }

    /** Keys held now, after any pending eviction has run. */
    long size() {
        jobs.cleanUp();
        return jobs.estimatedSize();
    }
}
