package dev.ingestor.intake;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.event.TransactionalEventListenerFactory;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;

/** A key enters the cache when its transaction commits, never before and never after a rollback. */
class CommittedKeysTest {

    private static final String KEY = "ACME:" + "ab".repeat(32);

    /** Spring's own transaction machinery, synchronizations included, with nothing underneath to commit. */
    private static final class BareTransactions extends AbstractPlatformTransactionManager {
        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
        }
    }

    private final TransactionTemplate transaction = new TransactionTemplate(new BareTransactions());
    private final List<AnnotationConfigApplicationContext> contexts = new ArrayList<>();
    private final CommittedKeys keys = committedKeys(CommittedKeys.CAPACITY);

    /**
     * The bean in a Spring context of its own, with what the application has for its after-commit listener
     * (Spring Boot's transaction configuration registers the same factory); eviction in the calling thread.
     */
    private CommittedKeys committedKeys(int capacity) {
        AnnotationConfigApplicationContext spring = new AnnotationConfigApplicationContext();
        spring.registerBean(TransactionalEventListenerFactory.class);
        spring.registerBean(CommittedKeys.class, () -> new CommittedKeys(capacity, Runnable::run, spring));
        spring.refresh();
        contexts.add(spring);
        return spring.getBean(CommittedKeys.class);
    }

    @AfterEach
    void close() {
        contexts.forEach(AnnotationConfigApplicationContext::close);
    }

    @Test
    void aKeyIsKnownOnlyOnceItsTransactionHasCommitted() {
        UUID job = UUID.randomUUID();
        transaction.executeWithoutResult(status -> {
            keys.rememberAfterCommit(KEY, job);
            assertThat(keys.jobOf(KEY)).as("not before the commit").isNull();
        });
        assertThat(keys.jobOf(KEY)).isEqualTo(job);
    }

    @Test
    void aKeyWhoseTransactionRolledBackIsNotKnown() {
        transaction.executeWithoutResult(status -> {
            keys.rememberAfterCommit(KEY, UUID.randomUUID());
            status.setRollbackOnly();
        });
        assertThat(keys.jobOf(KEY)).isNull();
    }

    @Test
    void outsideATransactionNothingIsRemembered() {
        keys.rememberAfterCommit(KEY, UUID.randomUUID());
        assertThat(keys.jobOf(KEY)).isNull();
    }

    /**
     * The bound: however many keys commit, no more than the capacity are held, and every key still held answers
     * its own job (one that made room answers nothing, never another key's job). Which key makes room is the
     * cache's policy, not asserted here; what a key that made room costs (the database answers it) is
     * KnownContentPushTest's {@code aKeyThisInstanceNoLongerHoldsIsAnsweredThroughTheDatabase}.
     */
    @Test
    void theKeysHeldNeverExceedTheCapacityAndEachAnswersItsOwnJob() {
        int capacity = 50;
        // eviction in the calling thread (committedKeys), so the bound is checked after each commit, not eventually
        CommittedKeys bounded = committedKeys(capacity);
        Map<String, UUID> committed = new HashMap<>();
        for (int i = 0; i < capacity * 20; i++) {
            String key = "ACME:" + String.format("%064x", i);
            UUID job = UUID.randomUUID();
            committed.put(key, job);
            transaction.executeWithoutResult(status -> bounded.rememberAfterCommit(key, job));
            assertThat(bounded.size()).as("keys held after %d commits", i + 1).isLessThanOrEqualTo(capacity);
        }
        int held = 0;
        for (Map.Entry<String, UUID> key : committed.entrySet()) {
            UUID answered = bounded.jobOf(key.getKey());
            if (answered != null) {
                assertThat(answered).as("the job of %s", key.getKey()).isEqualTo(key.getValue());
                held++;
            }
        }
        assertThat(held).as("the cache is used up to its bound, not emptied").isEqualTo(capacity);
    }

    @Test
    void aForgottenKeyIsUnknown() {
        UUID job = UUID.randomUUID();
        transaction.executeWithoutResult(status -> keys.rememberAfterCommit(KEY, job));
        assertThat(keys.jobOf(KEY)).isEqualTo(job);
        keys.forget(KEY);
        assertThat(keys.jobOf(KEY)).isNull();
    }
}
