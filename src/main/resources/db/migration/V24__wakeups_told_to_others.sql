-- What the app tells after a commit (dev.ingestor.wakeup.WorkNotices) is for the other instances only: it has woken
-- its own stages in the JVM already. wakeup_listened_elsewhere(me) is V19's wakeup_listened() without the row of
-- instance `me`, so a lone instance sends no pg_notify of its own work: each such notification was a transaction
-- of its own with a commit flushed to disk, and its own listener then woke the stages a second time for it.
CREATE FUNCTION wakeup_listened_elsewhere(me text) RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM wakeup_listener WHERE listening_until > now() AND instance <> me)
$$;
