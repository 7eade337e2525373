package dev.ingestor.intake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The content-key repository inserts first: of two transactions adding the same key at once, without the key's
 * lock that serialises them in intake, the primary key decides. The second waits for the first and answers by
 * its outcome (a duplicate once it commits, new once it rolls back), never with an error.
 */
class ContentKeyRepositoryTest extends IngestorTestSupport {

    @Autowired
    ContentKeyRepository repository;
    @Autowired
    PlatformTransactionManager transactionManager;

    private static String newKey() {
        byte[] sha = new byte[32];
        new java.security.SecureRandom().nextBytes(sha);
        return "ACME:" + HexFormat.of().formatHex(sha);
    }

    /**
     * Adds {@code key} in a transaction of its own and holds it open until {@code end} counts down; then commits,
     * or rolls back when {@code rollBack}. {@code pid} gets its backend's id once the key is added.
     */
    private CompletableFuture<Boolean> firstAdd(String key, AtomicInteger pid, CountDownLatch end, boolean rollBack) {
        TransactionTemplate transactions = new TransactionTemplate(transactionManager);
        return CompletableFuture.supplyAsync(() -> transactions.execute(status -> {
            boolean added = repository.add(key);
            pid.set(jdbc.queryForObject("SELECT pg_backend_pid()", Integer.class));
            try {
                assertThat(end.await(30, TimeUnit.SECONDS)).isTrue();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (rollBack) {
                status.setRollbackOnly();
            }
            return added;
        }));
    }

    private CompletableFuture<Boolean> secondAdd(String key) {
        TransactionTemplate transactions = new TransactionTemplate(transactionManager);
        return CompletableFuture.supplyAsync(() -> transactions.execute(status -> repository.add(key)));
    }

    @Test
    void ofTwoTransactionsAddingTheSameKeyTheSecondWaitsAndIsADuplicateOnceTheFirstCommits() throws Exception {
        String key = newKey();
        AtomicInteger firstPid = new AtomicInteger();
        CountDownLatch end = new CountDownLatch(1);
        CompletableFuture<Boolean> first = firstAdd(key, firstPid, end, false);
        await().atMost(Duration.ofSeconds(10)).until(() -> firstPid.get() != 0);

        CompletableFuture<Boolean> second = secondAdd(key);
        // the second waits on the first's uncommitted key: a read would have seen nothing and let it through
        await().atMost(Duration.ofSeconds(10)).until(() -> blockedBy(firstPid.get()), Objects::nonNull);
        assertThat(second).isNotDone();
        end.countDown();

        assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(second.get(10, TimeUnit.SECONDS)).as("a duplicate, not an error").isFalse();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM content_key WHERE key = ?", Long.class, key)).isEqualTo(1);
    }

    @Test
    void theSecondOfTwoTransactionsAddingTheSameKeyIsNewWhenTheFirstRollsBack() throws Exception {
        String key = newKey();
        AtomicInteger firstPid = new AtomicInteger();
        CountDownLatch end = new CountDownLatch(1);
        CompletableFuture<Boolean> first = firstAdd(key, firstPid, end, true);
        await().atMost(Duration.ofSeconds(10)).until(() -> firstPid.get() != 0);

        CompletableFuture<Boolean> second = secondAdd(key);
        await().atMost(Duration.ofSeconds(10)).until(() -> blockedBy(firstPid.get()), Objects::nonNull);
        end.countDown();

        assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(second.get(10, TimeUnit.SECONDS)).as("the key of a rolled-back attempt is free").isTrue();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM content_key WHERE key = ?", Long.class, key)).isEqualTo(1);
    }
}
