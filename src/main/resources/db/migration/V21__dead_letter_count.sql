-- The dead letters waiting for an operator (not replayed), kept by the database as the job counts are (V17): the
-- console's overview reads one row and a few deltas where it counted the waiting letters through
-- dead_letter_waiting, which costs a few rows while someone replays them and tens of thousands after a year in
-- which nobody did (docs/design.md, Counting and paging). dead_letter_count holds the folded count (one row),
-- dead_letter_count_delta the changes since the last fold, appended by statement-level triggers on dead_letter:
-- a statement that changes how many letters wait (writes, replays or deletes them, retention's cascade from
-- import_job included, whoever runs it) appends one row with its change. dead_letter_count_fold() (route
-- dead-letter-count, every few seconds) moves the deltas into the count in one statement, so a reader sees every
-- change either as a delta or folded, never both or neither.

-- Reads and writes of dead_letter wait from here to the migration's commit (seconds): the count below and the
-- index dropped at the end need them held, and taking the strongest lock first leaves no upgrade to deadlock on.
LOCK TABLE dead_letter IN ACCESS EXCLUSIVE MODE;

CREATE TABLE dead_letter_count (
    one     boolean PRIMARY KEY DEFAULT true CHECK (one),
    waiting bigint  NOT NULL
);

-- No index: rows are only appended, summed whole and deleted whole.
CREATE TABLE dead_letter_count_delta (
    waiting bigint NOT NULL
);

CREATE FUNCTION dead_letter_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO dead_letter_count_delta (waiting)
        SELECT count(*) FROM inserted_letters WHERE replayed_at IS NULL HAVING count(*) > 0;
    RETURN NULL;
END $$;

CREATE FUNCTION dead_letter_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO dead_letter_count_delta (waiting)
        SELECT -count(*) FROM deleted_letters WHERE replayed_at IS NULL HAVING count(*) > 0;
    RETURN NULL;
END $$;

-- Statement-level with both transition tables: a replay (replayed_at set) leaves the waiting letters; a repair by
-- hand that clears replayed_at brings them back. Every update of dead_letter is one of those, so the transition
-- tables cost nothing elsewhere (transition tables cannot be limited to a column).
CREATE FUNCTION dead_letter_count_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO dead_letter_count_delta (waiting)
        SELECT waiting FROM (
            SELECT (SELECT count(*) FROM new_letters WHERE replayed_at IS NULL)
                 - (SELECT count(*) FROM old_letters WHERE replayed_at IS NULL) AS waiting) d
        WHERE waiting <> 0;
    RETURN NULL;
END $$;

-- A truncate trigger that empties kept counts refuses to run under a transaction's single snapshot (REPEATABLE
-- READ, SERIALIZABLE): TRUNCATE empties the table whatever the snapshot, but the trigger's DELETE of the deltas would
-- leave those written after the snapshot was taken, and the count with them.
CREATE FUNCTION counts_need_read_committed(truncated text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'TRUNCATE % needs READ COMMITTED (this transaction is %): the counts kept of it would keep'
            ' deltas written after its snapshot', truncated, current_setting('transaction_isolation');
    END IF;
END $$;

-- Under the fold's lock, as dead_letter_count_recount() below.
CREATE FUNCTION dead_letter_count_emptied() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM counts_need_read_committed('dead_letter');
    PERFORM pg_advisory_xact_lock(hashtext('dead_letter_count_fold'));
    DELETE FROM dead_letter_count_delta;
    INSERT INTO dead_letter_count (waiting) VALUES (0) ON CONFLICT (one) DO UPDATE SET waiting = 0;
    RETURN NULL;
END $$;

-- The job counts' truncate trigger (V17) with the same guard.
CREATE OR REPLACE FUNCTION job_count_emptied() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM counts_need_read_committed('import_job');
    PERFORM pg_advisory_xact_lock(hashtext('job_count_fold'));
    DELETE FROM job_count_delta;
    DELETE FROM job_count;
    RETURN NULL;
END $$;

-- Moves the deltas into dead_letter_count; returns how many delta rows it took. One fold at a time (an advisory
-- lock; another instance's fold, a recount or a truncate meanwhile: it returns 0 at once).
CREATE FUNCTION dead_letter_count_fold() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    taken bigint;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('dead_letter_count_fold')) THEN
        RETURN 0;
    END IF;
    -- without its row the deltas would be folded into nothing; they stay until a recount makes the row again
    IF NOT EXISTS (SELECT 1 FROM dead_letter_count) THEN
        RAISE EXCEPTION 'dead_letter_count has lost its row: SELECT dead_letter_count_recount() makes it again';
    END IF;
    WITH gone AS (DELETE FROM dead_letter_count_delta RETURNING waiting),
         summed AS (SELECT coalesce(sum(waiting), 0) AS waiting, count(*) AS n FROM gone),
         folded AS (UPDATE dead_letter_count c SET waiting = c.waiting + summed.waiting FROM summed
                    WHERE summed.n > 0)
    SELECT n INTO taken FROM summed;
    RETURN taken;
END $$;

-- The count made again from the dead letters (its row too, should it have gone), holding their writes until the
-- transaction ends: for an operator who doubts it, or after a data-only restore that ran the triggers
-- (docs/operations.md). Never needed while the triggers are in place.
CREATE FUNCTION dead_letter_count_recount() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    -- the table first, then the fold's lock: the order a TRUNCATE and its trigger take them in
    LOCK TABLE dead_letter IN SHARE MODE;
    PERFORM pg_advisory_xact_lock(hashtext('dead_letter_count_fold'));
    DELETE FROM dead_letter_count_delta;
    INSERT INTO dead_letter_count (waiting) SELECT count(*) FROM dead_letter WHERE replayed_at IS NULL
        ON CONFLICT (one) DO UPDATE SET waiting = EXCLUDED.waiting;
END $$;

-- Counted and armed under the lock taken above, so no dead letter changes between the count and the first trigger.
INSERT INTO dead_letter_count (waiting) SELECT count(*) FROM dead_letter WHERE replayed_at IS NULL;

CREATE TRIGGER dead_letter_count_insert AFTER INSERT ON dead_letter REFERENCING NEW TABLE AS inserted_letters
    FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_count_inserted();
CREATE TRIGGER dead_letter_count_delete AFTER DELETE ON dead_letter REFERENCING OLD TABLE AS deleted_letters
    FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_count_deleted();
CREATE TRIGGER dead_letter_count_update AFTER UPDATE ON dead_letter
    REFERENCING OLD TABLE AS old_letters NEW TABLE AS new_letters
    FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_count_updated();
CREATE TRIGGER dead_letter_count_truncate AFTER TRUNCATE ON dead_letter
    FOR EACH STATEMENT EXECUTE FUNCTION dead_letter_count_emptied();

-- The overview no longer counts the waiting letters; the replay of one looks it up by id (primary key).
DROP INDEX dead_letter_waiting;
