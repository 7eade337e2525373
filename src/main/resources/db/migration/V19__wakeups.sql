-- Wakeups (docs/design.md, Wakeups): work made for a stage is told to the stage's listeners with pg_notify, by the
-- trigger below for a job that waits again, and by the app after the commit for a new job and for events.
-- PostgreSQL delivers a notification at commit only (never after a rollback) and folds identical ones of a
-- transaction. The stages' polls stay as the safety net; a notification lost (no listener, a listener
-- reconnecting) only costs the wait for the next poll.
--   ingestor_validation   a job waits for validation (RECEIVED, no lease owner)
--   ingestor_processing   a job waits for processing (PROCESSING, no lease owner)
--   ingestor_outbox       events were written to the outbox; the payload is their topic

-- Who listens: each instance's listener keeps a row here while it listens (dev.ingestor.wakeup.NoticeListener),
-- renewed every ingestor.wakeups.alive-check-interval, deleted when it stops. Notifications are sent only while
-- some row is current: a commit that notified holds PostgreSQL's notification queue lock until its commit record is
-- flushed, which puts such commits one after another, so with no listener anywhere (wakeups off, or behind a
-- transaction pooler without a listener URL) no transaction notifies and commits go at the disk's pace again.
CREATE TABLE wakeup_listener (
    instance        text        PRIMARY KEY,
    listening_until timestamptz NOT NULL
);

CREATE FUNCTION wakeup_listened() RETURNS boolean LANGUAGE sql STABLE AS $$
    SELECT EXISTS (SELECT 1 FROM wakeup_listener WHERE listening_until > now())
$$;

-- A job became one that a claim takes (JobLifecycle#claim's guard): validated, handed back at a shutdown, sent
-- back by an operator. A new job is told of by the app after its commit instead (dev.ingestor.wakeup.WorkNotices),
-- not by a trigger on insert: every pushed file's transaction would take the notification queue lock through its
-- flush, and concurrent pushes would become durable one at a time (a job inserted by SQL is found by the polls).
-- The WHEN clause is evaluated without calling the function, so every other change of a job (a claim, a lease
-- renewal, a job coming to rest) costs nothing.
CREATE FUNCTION notify_job_waiting() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF wakeup_listened() THEN
        PERFORM pg_notify(CASE NEW.state WHEN 'RECEIVED' THEN 'ingestor_validation' ELSE 'ingestor_processing' END, '');
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER job_waiting_updated AFTER UPDATE OF state, lease_owner ON import_job FOR EACH ROW
    WHEN (NEW.lease_owner IS NULL AND NEW.state IN ('RECEIVED', 'PROCESSING')
          AND (OLD.lease_owner IS NOT NULL OR OLD.state IS DISTINCT FROM NEW.state))
    EXECUTE FUNCTION notify_job_waiting();

-- Events written to the outbox are told of by the app after their commit (dev.ingestor.outbox.OutboxWriter, through
-- WorkNotices), for the same reason as new jobs: an item batch answered while its caller waits writes its events in
-- the request's own transaction.
