-- The search by part of a file name, a month at a time. Through import_job's trigram index (V20) a search cost what
-- all of its matches in the table cost (each read from import_job and sorted, 500 of them for a year of a busy
-- installation), where a page needs only the newest: the cost grew with the years kept. job_file_name holds each
-- job's file name in a partition per month (UTC) of its received_at, each with its own trigram index; the store asks
-- the newest month first and goes back a month at a time until its page is full (docs/design.md, The job list).
--
-- Kept by triggers on import_job, in the statement that changes the job: a job's name is written with it and deleted
-- with it (retention), and a TRUNCATE empties both. A month's partition is made by job_file_name_month(), which
-- housekeeping calls for this month and the next two (and this migration for every month that holds jobs). A name
-- of a month without its partition (the instance stopped for months, a clock far ahead) lands in the default
-- partition, where the search finds it too, and moves into its month when housekeeping makes that month.
CREATE TABLE job_file_name (
    job_id      uuid        NOT NULL,
    received_at timestamptz NOT NULL,
    file_name   text        NOT NULL
) PARTITION BY RANGE (received_at);

CREATE TABLE job_file_name_default PARTITION OF job_file_name DEFAULT;

-- The partition of the month (UTC) that holds `at`, made when missing; returns its name, or NULL when it was there.
-- One caller at a time (an advisory lock); the names of that month waiting in the default partition move into it.
-- Waits at most 5 s for the default partition (a search or a retention reading it): over that it fails, and
-- housekeeping tries again at its next run.
CREATE FUNCTION job_file_name_month(at timestamptz) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    start_utc timestamp := date_trunc('month', at AT TIME ZONE 'UTC');
    month_start timestamptz := start_utc AT TIME ZONE 'UTC';
    month_end timestamptz := (start_utc + interval '1 month') AT TIME ZONE 'UTC';
    month_table text := 'job_file_name_' || to_char(start_utc, 'YYYY_MM');
    home name := (SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                  WHERE c.oid = 'job_file_name'::regclass);
    caller_lock_timeout text := current_setting('lock_timeout');
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('ingestor.job-file-name-month'));
    IF to_regclass(format('%I.%I', home, month_table)) IS NOT NULL THEN
        RETURN NULL;
    END IF;
    -- no name of the month may land in the default partition between the move and the attach; the caller's own
    -- timeout is given back after (a migration runs without one)
    PERFORM set_config('lock_timeout', '5s', true);
    LOCK TABLE job_file_name_default IN ACCESS EXCLUSIVE MODE;
    PERFORM set_config('lock_timeout', caller_lock_timeout, true);
    EXECUTE format('CREATE TABLE %I.%I (LIKE job_file_name)', home, month_table);
    EXECUTE format('WITH moved AS (DELETE FROM job_file_name_default WHERE received_at >= $1 AND received_at < $2'
                   ' RETURNING job_id, received_at, file_name) INSERT INTO %I.%I SELECT * FROM moved', home, month_table)
        USING month_start, month_end;
    -- attaching builds the month's indexes (those of the parent) and checks its rows against its bounds; the bounds
    -- written in UTC, whatever the session's TimeZone and DateStyle
    EXECUTE format('ALTER TABLE job_file_name ATTACH PARTITION %I.%I FOR VALUES FROM (%L) TO (%L)',
                   home, month_table, to_char(start_utc, 'YYYY-MM-DD HH24:MI:SS') || '+00',
                   to_char(start_utc + interval '1 month', 'YYYY-MM-DD HH24:MI:SS') || '+00');
    RETURN month_table;
END
$$;

-- No job is written, changed or deleted from here until the triggers below are armed, so the names copied are every
-- job's (SHARE ROW EXCLUSIVE: reads go on; intake waits, and no instance of this version serves before it is done).
LOCK TABLE import_job IN SHARE ROW EXCLUSIVE MODE;

-- every month that holds jobs, and this month and the next two
SELECT job_file_name_month(m AT TIME ZONE 'UTC')
FROM generate_series(date_trunc('month', coalesce((SELECT min(received_at) FROM import_job), now()) AT TIME ZONE 'UTC'),
                     now() AT TIME ZONE 'UTC' + interval '2 months', interval '1 month') AS m;

INSERT INTO job_file_name (job_id, received_at, file_name) SELECT id, received_at, file_name FROM import_job;

-- a page read newest first (a search that most names match stops at its page), and a job's row found to delete it
CREATE INDEX job_file_name_newest ON job_file_name (received_at DESC, job_id DESC);

CREATE FUNCTION job_file_name_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO job_file_name (job_id, received_at, file_name) SELECT id, received_at, file_name FROM added;
    RETURN NULL;
END
$$;
CREATE TRIGGER job_file_name_added AFTER INSERT ON import_job REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION job_file_name_added();

-- by statement: one join of the jobs deleted to their months' rows, each found through its month's index. It added
-- about 8 ms to a delete of 1,000 jobs on PostgreSQL 15, where a trigger by row, planned for each job, added 90. A
-- nested loop, always: the planner counts a lookup in every month for each job (it cannot know that each lookup is
-- left with the job's own month when it runs), so it would rather hash the jobs and read every month whole.
CREATE FUNCTION job_file_name_gone() RETURNS trigger LANGUAGE plpgsql
    SET enable_hashjoin = off SET enable_mergejoin = off AS $$
BEGIN
    DELETE FROM job_file_name f USING gone g WHERE f.received_at = g.received_at AND f.job_id = g.id;
    RETURN NULL;
END
$$;
CREATE TRIGGER job_file_name_gone AFTER DELETE ON import_job REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION job_file_name_gone();

-- the application never changes a job's name or arrival; a hand that does keeps the search right (by row: a trigger
-- on named columns takes no transition tables)
CREATE FUNCTION job_file_name_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM job_file_name WHERE received_at = OLD.received_at AND job_id = OLD.id;
    INSERT INTO job_file_name (job_id, received_at, file_name) VALUES (NEW.id, NEW.received_at, NEW.file_name);
    RETURN NULL;
END
$$;
CREATE TRIGGER job_file_name_changed AFTER UPDATE OF file_name, received_at ON import_job
    FOR EACH ROW EXECUTE FUNCTION job_file_name_changed();

-- unless the same TRUNCATE emptied the names already (it has them open: a second TRUNCATE of them would fail)
CREATE FUNCTION job_file_name_emptied() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM job_file_name) THEN
        TRUNCATE job_file_name;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER job_file_name_emptied AFTER TRUNCATE ON import_job
    FOR EACH STATEMENT EXECUTE FUNCTION job_file_name_emptied();

-- The months' trigram index, where pg_trgm is there (V20 created it, or a DBA did; docs/operations.md, A real
-- PostgreSQL, for where it is not); without it the search reads a month's names, not the whole table's jobs.
-- import_job's own trigram index is no longer asked and goes.
DO $$
DECLARE
    trgm_schema text;
BEGIN
    SELECT n.nspname INTO trgm_schema
      FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
     WHERE e.extname = 'pg_trgm';
    IF trgm_schema IS NOT NULL THEN
        BEGIN
            EXECUTE format('CREATE INDEX IF NOT EXISTS job_file_name_trigrams ON job_file_name'
                           ' USING gin (file_name %I.gin_trgm_ops) WITH (fastupdate = off)', trgm_schema);
        EXCEPTION WHEN OTHERS THEN
            RAISE WARNING 'trigram index of file names not created (SQLSTATE %: %): searches by part of a file name'
                ' read each month''s names unindexed', SQLSTATE, SQLERRM;
        END;
    ELSE
        RAISE WARNING 'pg_trgm is not there: searches by part of a file name read each month''s names unindexed'
            ' (docs/operations.md, A real PostgreSQL)';
    END IF;
END
$$;
DROP INDEX IF EXISTS import_job_file_name_trigrams;

-- the months' statistics, which tell the planner when a search's matches are few
ANALYZE job_file_name;
