package dev.ingestor.intake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.ingestor.support.IngestorTestSupport;
import dev.ingestor.support.LockHolder;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Several content keys are locked in one statement, one after another in sorted order whatever order they come in
 * (one order for every batch keeps two from waiting on each other in a circle), and the transaction's end lets them
 * all go.
 */
class ContentKeyLockTest extends IngestorTestSupport {

    @Autowired
    ContentKeyLock locks;

    @Autowired
    PlatformTransactionManager transactionManager;

    @Test
    void severalKeysAreLockedOneAfterAnotherInSortedOrder() throws Exception {
        String first = "ACME:a-" + UUID.randomUUID();
        String second = "ACME:b-" + UUID.randomUUID();
        String third = "ACME:c-" + UUID.randomUUID();
        CompletableFuture<Void> batch;
        try (LockHolder holder = new LockHolder()) {
            int holderPid = holder.pid();
            // the second key is held elsewhere, as intake holds a key while the same bytes arrive
            holder.holdContentKey(second);
            batch = CompletableFuture.runAsync(() -> new TransactionTemplate(transactionManager)
                    .executeWithoutResult(status -> locks.lockAll(List.of(third, first, second))));
            int waiting = await().atMost(Duration.ofSeconds(20)).until(() -> blockedBy(holderPid), Objects::nonNull);

            // it waits at the second in sorted order: the first is its already, the third not yet
            assertThat(holds(waiting, first)).isTrue();
            assertThat(holds(waiting, third)).isFalse();
            assertThat(batch).isNotDone();

            holder.releaseContentKey(second);
        }
        batch.get(20, TimeUnit.SECONDS);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2"
                + " AND classid = hashtext('ingestor.content-key')::oid"
                + " AND objid IN (hashtext(?)::oid, hashtext(?)::oid, hashtext(?)::oid)", Long.class, first, second,
                third)).as("locks left after the transaction").isZero();
    }

    /** Whether backend {@code pid} holds the lock of {@code key}. */
    private boolean holds(int pid, String key) {
        return jdbc.queryForObject("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = ? AND granted"
                + " AND classid = hashtext('ingestor.content-key')::oid AND objid = hashtext(?)::oid"
                + " AND objsubid = 2", Long.class, pid, key) == 1;
    }
}
