package dev.ingestor.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

import dev.ingestor.support.IngestorTestSupport;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The guards of the job lifecycle against the real database: an operator's action touches only a job at rest
 * (never one a worker holds), reprocessing only a validated one, resuming only a FAILED one; a worker that lost
 * its lease moves nothing. Each case runs in a transaction that is rolled back, so the stage workers of the
 * running application never see its job.
 */
class JobLifecycleTest extends IngestorTestSupport {

    private static final Set<JobState> AT_REST = Set.of(JobState.COMPLETED, JobState.COMPLETED_WITH_ERRORS,
            JobState.REJECTED, JobState.FAILED);
    private static final String INSTANCE = "instance-of-the-worker";
    /** A claim's lease: its instance's id, a slash and the claim's token. */
    private static final String WORKER = INSTANCE + "/claim-holding-the-job";

    @Autowired
    JobLifecycle lifecycle;
    @Autowired
    PlatformTransactionManager transactionManager;

    /** One job as a case starts it: its state, who holds it (null: nobody), and how many records validation counted. */
    record Start(JobState state, String owner, long total) {
        @Override
        public String toString() {
            return state + (owner == null ? "" : " held by " + owner) + " total=" + total;
        }
    }

    private static List<Start> everyStart() {
        List<Start> starts = new ArrayList<>();
        for (JobState state : JobState.values()) {
            for (long total : new long[] {0, 5}) {
                starts.add(new Start(state, null, total));
                if (state == JobState.VALIDATING || state == JobState.PROCESSING) {
                    starts.add(new Start(state, WORKER, total));
                }
            }
        }
        return starts;
    }

    @Test
    void revalidateTakesOnlyAJobAtRestAndStartsItsCountsFromNothing() {
        for (Start start : everyStart()) {
            boolean expected = AT_REST.contains(start.state());
            Map<String, Object> after = run(start, id -> lifecycle.revalidate(id), expected);
            if (expected) {
                assertThat(after).as("revalidate " + start).containsEntry("state", "RECEIVED")
                        .containsEntry("takeovers", 0).containsEntry("attempts", 0)
                        .containsEntry("total", 0L).containsEntry("quarantined", 0L);
            }
        }
    }

    @Test
    void reprocessTakesOnlyAFinishedJobThatWasValidated() {
        for (Start start : everyStart()) {
            boolean expected = start.total() > 0 && Set.of(JobState.COMPLETED, JobState.COMPLETED_WITH_ERRORS,
                    JobState.FAILED).contains(start.state());
            Map<String, Object> after = run(start, id -> lifecycle.reprocess(id), expected);
            if (expected) {
                // waiting for processing from the first record, the quarantine as validation left it
                assertThat(after).as("reprocess " + start).containsEntry("state", "PROCESSING")
                        .containsEntry("takeovers", 0)
                        .containsEntry("attempts", 0).containsEntry("records_done", 0L).containsEntry("total", 5L)
                        .containsEntry("quarantined", 1L).containsEntry("records", 1L);
            }
        }
    }

    @Test
    void aDeadLettersJobResumesOnlyWhenFailedAndAtTheStageThatFailed() {
        for (Start start : everyStart()) {
            boolean toProcessing = start.state() == JobState.FAILED && start.total() > 0;
            Map<String, Object> after = run(start, id -> lifecycle.resumeAfterDeadLetter(id, "processing"),
                    toProcessing);
            if (toProcessing) {
                assertThat(after).as("resume processing " + start).containsEntry("state", "PROCESSING")
                        .containsEntry("takeovers", 0)
                        .containsEntry("records_done", 2L); // from its checkpoint
            }
            boolean toValidation = start.state() == JobState.FAILED;
            after = run(start, id -> lifecycle.resumeAfterDeadLetter(id, "validation"), toValidation);
            if (toValidation) {
                assertThat(after).as("resume validation " + start).containsEntry("state", "RECEIVED")
                        .containsEntry("takeovers", 0).containsEntry("attempts", 0)
                        .containsEntry("total", 0L).containsEntry("records_done", 0L);
            }
        }
    }

    @Test
    void aWorkerMovesOnlyTheJobItHolds() {
        Start held = new Start(JobState.VALIDATING, WORKER, 0);
        List<Function<UUID, Boolean>> moves = List.of(
                id -> lifecycle.validated(id, "worker-that-lost-the-lease", 5, 1),
                id -> lifecycle.rejected(id, "worker-that-lost-the-lease", "unreadable"),
                id -> lifecycle.failed(id, "worker-that-lost-the-lease", "broken"),
                id -> lifecycle.completed(id, "worker-that-lost-the-lease", JobState.COMPLETED, 0, 5, 4, 0, 0));
        for (Function<UUID, Boolean> move : moves) {
            run(held, move, false);
        }
        Map<String, Object> validated = run(held, id -> lifecycle.validated(id, WORKER, 5, 1), true);
        // validated, waiting for processing: PROCESSING with no lease owner
        // takeovers are counted per stage: validation's do not use up processing's allowance
        assertThat(validated).containsEntry("state", "PROCESSING").containsEntry("takeovers", 0)
                .containsEntry("total", 5L).containsEntry("quarantined", 1L);
        assertThat(run(held, id -> lifecycle.rejected(id, WORKER, "unreadable"), true))
                .containsEntry("state", "REJECTED")
                .containsEntry("error", "unreadable").containsEntry("takeovers", 0);
        assertThat(run(held, id -> lifecycle.failed(id, WORKER, "broken"), true)).containsEntry("state", "FAILED")
                .containsEntry("takeovers", 0);
        // the last batch's checkpoint comes with the completion: records done, and its counts added to the job's
        Start processing = new Start(JobState.PROCESSING, WORKER, 5);
        assertThat(run(processing, id -> lifecycle.completed(id, WORKER, JobState.COMPLETED_WITH_ERRORS, 2, 5, 2, 1, 1),
                true))
                .containsEntry("state", "COMPLETED_WITH_ERRORS").containsEntry("error", null)
                .containsEntry("records_done", 5L);
        // only from where the checkpoint stands (2 records done: another run committed the range from 0 or 3),
        // and only in processing
        run(processing, id -> lifecycle.completed(id, WORKER, JobState.COMPLETED, 0, 5, 2, 0, 0), false);
        run(processing, id -> lifecycle.completed(id, WORKER, JobState.COMPLETED, 3, 5, 2, 0, 0), false);
        run(held, id -> lifecycle.completed(id, WORKER, JobState.COMPLETED, 0, 5, 2, 0, 0), false);
        assertThatThrownBy(() -> lifecycle.completed(UUID.randomUUID(), WORKER, JobState.FAILED, 0, 0, 0, 0, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * A worker hands a small file on to its own processing only while it holds the job in validation: not for
     * another lease, and not once the job is in another state. Handed on, the job is PROCESSING and still held.
     */
    @Test
    void aWorkerHandsOnToItsOwnProcessingOnlyAJobItHoldsInValidation() {
        for (Start start : everyStart()) {
            boolean expected = start.state() == JobState.VALIDATING && WORKER.equals(start.owner());
            new TransactionTemplate(transactionManager).executeWithoutResult(status -> {
                status.setRollbackOnly();
                UUID id = insert(start);
                Map<String, Object> before = row(id);
                boolean done = lifecycle.validatedAndHeld(id, WORKER, 5, 1).isPresent();
                assertThat(done).as(start + " handed on").isEqualTo(expected);
                if (done) {
                    assertThat(row(id)).containsEntry("state", "PROCESSING").containsEntry("lease_owner", WORKER)
                            .containsEntry("total", 5L).containsEntry("quarantined", 1L).containsEntry("takeovers", 0)
                            .containsEntry("attempts", 2);
                } else {
                    assertThat(row(id)).as(start + " untouched").isEqualTo(before);
                }
            });
        }
        // and the plain hand-off to waiting is refused too once the job moved on
        new TransactionTemplate(transactionManager).executeWithoutResult(status -> {
            status.setRollbackOnly();
            UUID id = insert(new Start(JobState.PROCESSING, WORKER, 5));
            assertThat(lifecycle.validated(id, WORKER, 5, 1)).isFalse();
        });
    }

    /**
     * A claim takes the older of the oldest job waiting for its stage and the oldest of its stage whose lease
     * lapsed with takeovers left; never a job of another stage, a held job whose lease runs, or one past the
     * takeover limit. The jobs are dated years back, so they come before anything else in the database.
     */
    @Test
    void aClaimTakesTheOldestWaitingOrLapsedJobOfItsStageOnly() {
        new TransactionTemplate(transactionManager).executeWithoutResult(status -> {
            status.setRollbackOnly();
            int limit = lifecycle.maxTakeovers();
            UUID pastLimit = dated(JobState.VALIDATING, "dead-worker", "-1 hour", limit, "2001-01-01");
            UUID running = dated(JobState.VALIDATING, WORKER, "+1 hour", 0, "2001-01-02");
            UUID otherStage = dated(JobState.PROCESSING, null, null, 0, "2001-01-03");
            UUID lapsed = dated(JobState.VALIDATING, "dead-worker", "-1 hour", limit - 1, "2001-01-04");
            UUID waiting = dated(JobState.RECEIVED, null, null, 0, "2001-01-05");

            ImportJob first = lifecycle.claim(JobState.RECEIVED, JobState.VALIDATING, "claimer").orElseThrow();
            assertThat(first.id()).as("the lapsed job, older than the waiting one").isEqualTo(lapsed);
            assertThat(row(lapsed)).containsEntry("state", "VALIDATING").containsEntry("lease_owner", "claimer")
                    .containsEntry("takeovers", limit);
            ImportJob second = lifecycle.claim(JobState.RECEIVED, JobState.VALIDATING, "claimer").orElseThrow();
            assertThat(second.id()).isEqualTo(waiting);
            assertThat(row(waiting)).containsEntry("state", "VALIDATING").containsEntry("takeovers", 0);
            assertThat(row(pastLimit)).containsEntry("lease_owner", "dead-worker");
            assertThat(row(running)).containsEntry("lease_owner", WORKER);

            ImportJob processing = lifecycle.claim(JobState.PROCESSING, JobState.PROCESSING, "claimer").orElseThrow();
            assertThat(processing.id()).isEqualTo(otherStage);
        });
    }

    /**
     * A group takes the front of the queue of waiting files: in order, while each is small and all fit together, and
     * the first larger file ends it, so a large file is never passed over by small ones that came after it. Never a
     * held job, a job of another stage, or a lapsed lease. Dated years back, before anything else in the database.
     */
    @Test
    void aGroupTakesTheFrontOfTheQueueUpToTheFirstLargerFileAndWithinItsBytes() {
        new TransactionTemplate(transactionManager).executeWithoutResult(status -> {
            status.setRollbackOnly();
            UUID held = sized(dated(JobState.VALIDATING, WORKER, "+1 hour", 0, "2001-01-01"), 10);
            UUID lapsed = sized(dated(JobState.VALIDATING, "dead-worker", "-1 hour", 0, "2001-01-02"), 10);
            UUID first = sized(dated(JobState.RECEIVED, null, null, 0, "2001-01-03"), 10);
            UUID second = sized(dated(JobState.RECEIVED, null, null, 0, "2001-01-04"), 30);
            UUID large = sized(dated(JobState.RECEIVED, null, null, 0, "2001-01-05"), 101);
            UUID after = sized(dated(JobState.RECEIVED, null, null, 0, "2001-01-06"), 10);

            // handed back at a shutdown after a takeover: claimed alone, as a takeover is, so it ends a group
            UUID handedBack = sized(dated(JobState.RECEIVED, null, null, 1, "2001-01-08"), 10);

            List<ImportJob> group = lifecycle.claimSmallAfter("claimer", 10, 100, 1000);
            assertThat(group).extracting(ImportJob::id).containsExactly(first, second);
            assertThat(row(first)).containsEntry("state", "VALIDATING").containsEntry("lease_owner", "claimer")
                    .containsEntry("attempts", 2).containsEntry("takeovers", 0);
            for (UUID untouched : List.of(large, after)) {
                assertThat(row(untouched)).containsEntry("state", "RECEIVED").containsEntry("lease_owner", null);
            }
            assertThat(row(held)).containsEntry("lease_owner", WORKER);
            assertThat(row(lapsed)).containsEntry("lease_owner", "dead-worker");

            // the large file's turn: a group never starts with it (the one-file claim takes it), and the bytes
            // allowed end a group as the first larger file does
            jdbc.update("UPDATE import_job SET state = 'COMPLETED', lease_owner = NULL WHERE id = ?", large);
            UUID third = sized(dated(JobState.RECEIVED, null, null, 0, "2001-01-07"), 10);
            assertThat(lifecycle.claimSmallAfter("claimer", 10, 100, 15)).extracting(ImportJob::id)
                    .containsExactly(after);
            assertThat(lifecycle.claimSmallAfter("claimer", 1, 100, 1000)).extracting(ImportJob::id)
                    .containsExactly(third);
            assertThat(lifecycle.claimSmallAfter("claimer", 0, 100, 1000)).isEmpty();
            assertThat(lifecycle.claimSmallAfter("claimer", 10, 100, 1000)).as("the takeover's turn").isEmpty();
            assertThat(row(handedBack)).containsEntry("state", "RECEIVED").containsEntry("lease_owner", null);
        });
    }

    /**
     * A group comes to rest only where its owner holds each job in validation; the statement answers how many it
     * moved, so the group's worker sees a lost lease and rolls the whole group back.
     */
    @Test
    void aGroupCompletesOnlyTheJobsItsOwnerHoldsInValidationAsClaimed() {
        for (Start start : everyStart()) {
            boolean held = start.state() == JobState.VALIDATING && WORKER.equals(start.owner());
            // every case starts with one takeover: a group's job never has one, so even the held job is refused...
            run(start, id -> lifecycle.completedGroup(WORKER, List.of(
                    new JobLifecycle.GroupResult(id, JobState.COMPLETED, 5, 0, 5, 0, 0))).size() == 1, false);
            // ...and it completes once it is as a group claims it (no takeover)
            new TransactionTemplate(transactionManager).executeWithoutResult(status -> {
                status.setRollbackOnly();
                UUID id = insert(start);
                jdbc.update("UPDATE import_job SET takeovers = 0 WHERE id = ?", id);
                Map<String, Object> before = row(id);
                List<UUID> done = lifecycle.completedGroup(WORKER, List.of(
                        new JobLifecycle.GroupResult(id, JobState.COMPLETED_WITH_ERRORS, 5, 1, 2, 1, 1)));
                assertThat(done).as("group " + start).isEqualTo(held ? List.of(id) : List.of());
                if (held) {
                    assertThat(row(id)).as("group " + start).containsEntry("state", "COMPLETED_WITH_ERRORS")
                            .containsEntry("lease_owner", null).containsEntry("total", 5L)
                            .containsEntry("quarantined", 1L)
                            .containsEntry("records_done", 5L).containsEntry("takeovers", 0)
                            .containsEntry("attempts", 2);
                } else {
                    assertThat(row(id)).as(start + " untouched").isEqualTo(before);
                }
            });
        }
        assertThatThrownBy(() -> lifecycle.completedGroup(WORKER, List.of(
                new JobLifecycle.GroupResult(UUID.randomUUID(), JobState.FAILED, 1, 0, 0, 0, 0))))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /**
     * A job of a group goes on alone with its lease extended only while it is held as the group claimed it: by the
     * group's lease, never taken over, still in validation.
     */
    @Test
    void aGroupsJobGoesOnAloneOnlyWhileItIsHeldAsClaimed() {
        new TransactionTemplate(transactionManager).executeWithoutResult(status -> {
            status.setRollbackOnly();
            UUID held = dated(JobState.VALIDATING, WORKER, "+1 minute", 0, "2001-01-01");
            UUID takenOver = dated(JobState.VALIDATING, WORKER, "+1 minute", 1, "2001-01-02");
            UUID moved = dated(JobState.PROCESSING, WORKER, "+1 minute", 0, "2001-01-03");
            assertThat(lifecycle.renewedFromGroup(held, WORKER)).isTrue();
            assertThat(jdbc.queryForObject(
                    "SELECT lease_until > now() + interval '5 minutes' FROM import_job WHERE id = ?",
                    Boolean.class, held)).isTrue();
            assertThat(lifecycle.renewedFromGroup(held, "another-instance")).isFalse();
            assertThat(lifecycle.renewedFromGroup(takenOver, WORKER)).isFalse();
            assertThat(lifecycle.renewedFromGroup(moved, WORKER)).isFalse();
        });
    }

    private UUID sized(UUID id, long size) {
        jdbc.update("UPDATE import_job SET size = ? WHERE id = ?", size, id);
        return id;
    }

    private UUID dated(JobState state, String owner, String leaseFromNow, int takeovers, String receivedAt) {
        UUID id = insert(new Start(state, owner, 0));
        jdbc.update("UPDATE import_job SET received_at = ?::timestamptz, takeovers = ?,"
                + " lease_until = CASE WHEN ?::text IS NULL THEN NULL ELSE now() + ?::interval END WHERE id = ?",
                receivedAt, takeovers, leaseFromNow, leaseFromNow, id);
        return id;
    }

    @Test
    void aShutdownHandsBackOnlyTheJobsOfItsOwnInstance() {
        for (Start start : everyStart()) {
            boolean expected = WORKER.equals(start.owner());
            Map<String, Object> after = run(start, id -> lifecycle.releasedOnShutdown(INSTANCE) == 1, expected);
            if (expected) {
                // handed back, not lapsed: the takeover count stays as it was, claiming it again adds none
                assertThat(after).as("shutdown " + start).containsEntry("takeovers", 1).containsEntry("state",
                        start.state() == JobState.VALIDATING ? "RECEIVED" : "PROCESSING");
            }
        }
    }

    /**
     * Starts a job as {@code start} says (with one quarantined record, a checkpoint at record 2, one takeover),
     * applies {@code transition} and checks its answer: refused, the job is as it was; done, nobody holds it.
     * Rolled back at the end. Returns the job afterwards, with its record count.
     */
    private Map<String, Object> run(Start start, Function<UUID, Boolean> transition, boolean expected) {
        long sentBack = lifecycle.sentBackToWork();
        Map<String, Object> result = new TransactionTemplate(transactionManager).execute(status -> {
            status.setRollbackOnly();
            UUID id = insert(start);
            Map<String, Object> before = row(id);
            boolean done = transition.apply(id);
            Map<String, Object> after = row(id);
            assertThat(done).as(start + " moved").isEqualTo(expected);
            if (done) {
                assertThat(after).as(start.toString()).containsEntry("lease_owner", null).containsEntry("lease_until",
                        null);
            } else {
                assertThat(after).as(start + " untouched").isEqualTo(before);
            }
            return after;
        });
        assertThat(lifecycle.sentBackToWork())
                .as(start + ": a transition rolled back is not counted as sent back to work")
                .isEqualTo(sentBack);
        return result;
    }

    /**
     * What a repeated push's kept answer relies on (DuplicatePushCounts): every operator transition out of rest is
     * counted once its transaction commits, not before. Each job is deleted in the same transaction, so no stage
     * worker ever sees it.
     */
    @Test
    void everyOperatorTransitionOutOfRestIsCountedOnceItsTransactionCommits() {
        Map<String, Function<UUID, Boolean>> transitions = new java.util.LinkedHashMap<>();
        transitions.put("revalidate", lifecycle::revalidate);
        transitions.put("reprocess", lifecycle::reprocess);
        transitions.put("resume processing", id -> lifecycle.resumeAfterDeadLetter(id, "processing"));
        transitions.put("resume validation", id -> lifecycle.resumeAfterDeadLetter(id, "validation"));
        transitions.forEach((name, transition) -> {
            long before = lifecycle.sentBackToWork();
            new TransactionTemplate(transactionManager).executeWithoutResult(status -> {
                UUID id = insert(new Start(JobState.FAILED, null, 5));
                assertThat(transition.apply(id)).as(name).isTrue();
                assertThat(lifecycle.sentBackToWork()).as(name + ", before its commit").isEqualTo(before);
                jdbc.update("DELETE FROM import_job WHERE id = ?", id);
                jdbc.update("DELETE FROM content_key k WHERE k.created_by = 'test'"
                        + " AND NOT EXISTS (SELECT 1 FROM import_job j WHERE j.key = k.key)");
            });
            assertThat(lifecycle.sentBackToWork()).as(name + ", after its commit").isEqualTo(before + 1);
        });
    }

    private UUID insert(Start start) {
        UUID id = UUID.randomUUID();
        String sha = String.format("%064x", id.getLeastSignificantBits() & Long.MAX_VALUE);
        String key = "ACME:" + sha;
        jdbc.update("INSERT INTO content_key (key, supplier, sha256, created_by) VALUES (?, 'ACME', ?, 'test')", key,
                sha);
        jdbc.update("INSERT INTO import_job (id, supplier, state, key, file_name, size, source, total, quarantined,"
                + " records_done, lease_owner, lease_until, attempts, takeovers)"
                + " VALUES (?, 'ACME', ?, ?, 'lifecycle.csv', 10, 'test', ?, ?, ?, ?,"
                + " CASE WHEN ?::text IS NULL THEN NULL ELSE now() + interval '1 hour' END, 1, 1)",
                id, start.state().name(), key, start.total(), start.total() > 0 ? 1 : 0, start.total() > 0 ? 2 : 0,
                start.owner(), start.owner());
        if (start.total() > 0) {
            jdbc.update(
                    "INSERT INTO job_record (job_id, record_no, line, outcome, reason) VALUES (?, 3, 4, 'QUARANTINED', 'bad')",
                    id);
        }
        return id;
    }

    private Map<String, Object> row(UUID id) {
        return jdbc.queryForMap(
                "SELECT state, lease_owner, lease_until, total, quarantined, records_done, error, attempts,"
                        + " takeovers, (SELECT count(*) FROM job_record r WHERE r.job_id = j.id) AS records FROM import_job j WHERE id = ?",
                id);
    }
}
