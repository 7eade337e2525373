-- Costs that stay flat over years of data: counts the console and the gauges read without counting the table, lists
-- paged by key through an index, and an index through which retention trims the items' history
-- (docs/design.md, Counting and paging).

-- Jobs per supplier and state, kept by the database: job_count holds the folded counts, job_count_delta the
-- changes since the last fold, appended by triggers on import_job (so rows inserted, moved or deleted by plain
-- SQL count too). The count of a supplier and state is its job_count row plus its delta rows. A change of state
-- appends rows and updates none, so concurrent transitions on several instances never wait on one counter row;
-- job_count_fold() (dev.ingestor.job.JobCounts, every few seconds) moves the deltas into job_count in one
-- statement, so a reader sees every change either as a delta or folded, never both or neither.
CREATE TABLE job_count (
    supplier text   NOT NULL,
    state    text   NOT NULL,
    jobs     bigint NOT NULL,
    PRIMARY KEY (supplier, state)
);

-- No index: rows are only appended, summed whole and deleted whole.
CREATE TABLE job_count_delta (
    supplier text   NOT NULL,
    state    text   NOT NULL,
    jobs     bigint NOT NULL
);

-- Statement-level for inserts and deletes: retention's batch of 1,000 or a load of millions by SQL appends one row
-- per supplier and state, not one per job.
CREATE FUNCTION job_count_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO job_count_delta (supplier, state, jobs)
        SELECT supplier, state, count(*) FROM inserted_jobs GROUP BY supplier, state;
    RETURN NULL;
END $$;

CREATE FUNCTION job_count_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO job_count_delta (supplier, state, jobs)
        SELECT supplier, state, -count(*) FROM deleted_jobs GROUP BY supplier, state;
    RETURN NULL;
END $$;

-- Row-level for updates, called only when the state or supplier changed (the WHEN clause is checked without
-- calling the function): a lease renewal or a checkpoint costs nothing here. (A statement-level update trigger
-- with transition tables could not be restricted to these columns.)
CREATE FUNCTION job_count_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO job_count_delta (supplier, state, jobs) VALUES (OLD.supplier, OLD.state, -1), (NEW.supplier, NEW.state, 1);
    RETURN NULL;
END $$;

-- Under the fold's lock, as job_count_recount() below: a fold running beside it would add deltas it had taken
-- before the truncate to counts emptied after it.
CREATE FUNCTION job_count_emptied() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('job_count_fold'));
    DELETE FROM job_count_delta;
    DELETE FROM job_count;
    RETURN NULL;
END $$;

-- Moves the deltas into job_count; returns how many delta rows it took. One fold at a time (an advisory lock;
-- another instance's fold, a recount or a truncate meanwhile: it returns 0 at once): two folds would take the same delta rows' locks and
-- job_count's in orders that could meet in a deadlock.
CREATE FUNCTION job_count_fold() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    taken bigint;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('job_count_fold')) THEN
        RETURN 0;
    END IF;
    WITH gone AS (DELETE FROM job_count_delta RETURNING supplier, state, jobs),
         summed AS (SELECT supplier, state, sum(jobs) AS jobs, count(*) AS n FROM gone GROUP BY supplier, state),
         folded AS (INSERT INTO job_count AS c (supplier, state, jobs)
                        SELECT supplier, state, jobs FROM summed ORDER BY supplier, state
                    ON CONFLICT (supplier, state) DO UPDATE SET jobs = c.jobs + EXCLUDED.jobs)
    SELECT coalesce(sum(n), 0) INTO taken FROM summed;
    DELETE FROM job_count WHERE jobs = 0;
    RETURN taken;
END $$;

-- The counts made again from the jobs themselves, under a lock that lets reads through but holds every write of
-- import_job until the transaction ends: for an operator who doubts them (docs/operations.md). Never needed while
-- the triggers are in place, which the migration below and every later change of import_job keep. It waits for a
-- fold under way (the fold's lock), and folds wait for it: a fold beside it would add again what it recounted.
CREATE FUNCTION job_count_recount() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    -- the table first, then the fold's lock: the order a TRUNCATE and its trigger take them in
    LOCK TABLE import_job IN SHARE MODE;
    PERFORM pg_advisory_xact_lock(hashtext('job_count_fold'));
    DELETE FROM job_count_delta;
    DELETE FROM job_count;
    INSERT INTO job_count (supplier, state, jobs) SELECT supplier, state, count(*) FROM import_job GROUP BY 1, 2;
END $$;

-- Counted and armed under one lock, so no job changes between the count and the first trigger.
LOCK TABLE import_job IN SHARE ROW EXCLUSIVE MODE;
INSERT INTO job_count (supplier, state, jobs) SELECT supplier, state, count(*) FROM import_job GROUP BY 1, 2;

CREATE TRIGGER job_count_insert AFTER INSERT ON import_job REFERENCING NEW TABLE AS inserted_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION job_count_inserted();
CREATE TRIGGER job_count_delete AFTER DELETE ON import_job REFERENCING OLD TABLE AS deleted_jobs
    FOR EACH STATEMENT EXECUTE FUNCTION job_count_deleted();
CREATE TRIGGER job_count_update AFTER UPDATE OF state, supplier ON import_job FOR EACH ROW
    WHEN (OLD.state IS DISTINCT FROM NEW.state OR OLD.supplier IS DISTINCT FROM NEW.supplier)
    EXECUTE FUNCTION job_count_moved();
CREATE TRIGGER job_count_truncate AFTER TRUNCATE ON import_job
    FOR EACH STATEMENT EXECUTE FUNCTION job_count_emptied();

-- Lists paged by key (WHERE (received_at, id) < (cursor) ORDER BY received_at DESC, id DESC LIMIT n): each filter
-- the lists offer has an index that ends in the order the list is read in, so a page reads its rows and no more.
-- Newest first of all jobs: import_job_received (received_at DESC, id DESC) already.
DROP INDEX import_job_supplier_state;
CREATE INDEX import_job_supplier_state ON import_job (supplier, state, received_at DESC, id DESC);
DROP INDEX import_job_state_received;
CREATE INDEX import_job_state_received ON import_job (state, received_at DESC, id DESC);
CREATE INDEX import_job_supplier_received ON import_job (supplier, received_at DESC, id DESC);
-- The failed jobs, most recently failed first, of all suppliers or of one.
CREATE INDEX import_job_failed ON import_job (updated_at DESC, id DESC) WHERE state = 'FAILED';
CREATE INDEX import_job_supplier_failed ON import_job (supplier, updated_at DESC, id DESC) WHERE state = 'FAILED';
-- Intake failures of one supplier, newest first (of all: intake_failure_newest).
DROP INDEX intake_failure_supplier;
CREATE INDEX intake_failure_supplier ON intake_failure (supplier, occurred_at DESC, id DESC);

-- The items' history trimmed by age (ingestor.retention.item-versions): retention reads the oldest versions first.
CREATE INDEX item_version_recorded ON item_version (recorded_at);

-- The dead letters an operator still has to look at, counted by the console's overview: a few, however many were
-- replayed over the years.
CREATE INDEX dead_letter_waiting ON dead_letter (id) WHERE replayed_at IS NULL;
