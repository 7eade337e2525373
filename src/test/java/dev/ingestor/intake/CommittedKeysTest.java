package dev.ingestor.intake;

import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;

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
    private final CommittedKeys keys = new CommittedKeys();

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

    @Test
    void theLeastRecentlyAskedKeyMakesRoomAndAForgottenKeyIsUnknown() {
        CommittedKeys two = new CommittedKeys(2);
        UUID a = UUID.randomUUID();
        transaction.executeWithoutResult(status -> {
            two.rememberAfterCommit("ACME:" + "a".repeat(64), a);
            two.rememberAfterCommit("ACME:" + "b".repeat(64), UUID.randomUUID());
        });
        assertThat(two.jobOf("ACME:" + "a".repeat(64))).isEqualTo(a);
        transaction.executeWithoutResult(status -> two.rememberAfterCommit("ACME:" + "c".repeat(64), UUID.randomUUID()));
        assertThat(two.size()).isEqualTo(2);
        assertThat(two.jobOf("ACME:" + "b".repeat(64))).as("the eldest by access went").isNull();
        assertThat(two.jobOf("ACME:" + "a".repeat(64))).isEqualTo(a);
        two.forget("ACME:" + "a".repeat(64));
        assertThat(two.jobOf("ACME:" + "a".repeat(64))).isNull();
    }
}
