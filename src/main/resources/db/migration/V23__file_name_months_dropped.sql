-- The months of the search by part of a file name (V22) that no kept job belongs to any more go. Retention deletes
-- old jobs and, through V22's trigger, their names, which left each old month's partition empty for good: over the
-- years one more partition a month for every new connection's first search to read from the catalog and for
-- retention's delete of names to open (docs/benchmarks.md, Empty months). job_file_name_drop_months(before) drops
-- each month's partition that ends at or before the start of the month (UTC) of `before` (the caller gives the
-- oldest kept job's arrival) and holds no name; a month that still holds a name (written by a hand) stays. Never
-- this month nor the one before, whatever `before` says (a transaction begun last month may still write into it; a
-- clock set back leaves jobs in the future). Only months before the oldest job's: a search by cursor asks whole
-- months from that month on (JobSearch), which leaves the default partition out of it. Returns the names dropped.
--
-- One instance at a time, and never while a month is made (the advisory lock of job_file_name_month): an instance
-- that finds it taken leaves the work to the holder. The months are looked at first, without locking job_file_name
-- (a month retention has just emptied holds dead rows to read); only when one is empty is job_file_name taken in
-- ACCESS EXCLUSIVE mode, which dropping a partition needs, each month looked at again under it and dropped alone:
-- one that cannot be dropped (a view on it, another owner) is named in a WARNING and the others still go. The lock
-- waits at most 1 s for each of job_file_name and its months (a search or an intake transaction holding them;
-- intake waits behind it meanwhile), less when the caller's own lock_timeout is shorter; over it the call fails and
-- housekeeping tries again at its next run.
CREATE FUNCTION job_file_name_drop_months(before timestamptz) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
    cutoff timestamp := least(date_trunc('month', before AT TIME ZONE 'UTC'),
                              date_trunc('month', now() AT TIME ZONE 'UTC') - interval '1 month');
    home name := (SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                  WHERE c.oid = 'job_file_name'::regclass);
    caller_lock_timeout text := current_setting('lock_timeout');
    month_table name;
    empty_months name[] := '{}';
    holds_names boolean;
BEGIN
    IF NOT pg_try_advisory_xact_lock(hashtext('ingestor.job-file-name-month')) THEN
        RETURN;
    END IF;
    -- ours only: a partition of job_file_name in its schema named for a month (job_file_name_YYYY_MM)
    FOR month_table IN
        SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE i.inhparent = 'job_file_name'::regclass AND n.nspname = home
          AND to_date(substring(c.relname FROM '^job_file_name_([0-9]{4}_(?:0[1-9]|1[0-2]))$'), 'YYYY_MM')
              + interval '1 month' <= cutoff
        ORDER BY c.relname
    LOOP
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I.%I)', home, month_table) INTO holds_names;
        IF NOT holds_names THEN
            empty_months := empty_months || month_table;
        END IF;
    END LOOP;
    IF cardinality(empty_months) = 0 THEN
        RETURN;
    END IF;
    IF caller_lock_timeout::interval = interval '0' OR caller_lock_timeout::interval > interval '1 second' THEN
        PERFORM set_config('lock_timeout', '1s', true);
    END IF;
    LOCK TABLE job_file_name IN ACCESS EXCLUSIVE MODE;
    PERFORM set_config('lock_timeout', caller_lock_timeout, true);
    FOREACH month_table IN ARRAY empty_months LOOP
        BEGIN
            EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I.%I)', home, month_table) INTO holds_names;
            IF NOT holds_names THEN
                EXECUTE format('DROP TABLE %I.%I', home, month_table);
                RETURN NEXT month_table;
            END IF;
        EXCEPTION WHEN OTHERS THEN
            RAISE WARNING 'month % of the file-name search not dropped (SQLSTATE %: %)', month_table, SQLSTATE, SQLERRM;
        END;
    END LOOP;
END
$$;
