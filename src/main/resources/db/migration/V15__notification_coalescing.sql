-- Repeated refusals of one kind are one record and one notice, not one per arrival: a client looping on a bad file
-- must not page operators once per attempt nor fill the intake-failure list.

-- A notice that coalesces (coalesce_key: a digest of its type, supplier, source, outcome and reason; NULL for a
-- notice of one fact, never merged) counts the facts of its kind in occurrences, from first_at to last_at. While
-- coalescing it takes every later fact of its kind (one open row per kind and destination, the unique index: two
-- instances counting at once meet in INSERT ... ON CONFLICT); a delivery round that takes it ends that, so what
-- is sent is never counted into again. due_from is when it may be sent first: the first notice of a kind goes at
-- once, the next no sooner than the previous one's due_from plus ingestor.notifications.coalesce-window.
ALTER TABLE notification
    ADD COLUMN coalesce_key text,
    ADD COLUMN coalescing   boolean NOT NULL DEFAULT false,
    ADD COLUMN occurrences  integer NOT NULL DEFAULT 1,
    ADD COLUMN first_at     timestamptz,
    ADD COLUMN last_at      timestamptz,
    ADD COLUMN due_from     timestamptz;
CREATE UNIQUE INDEX notification_coalescing ON notification (coalesce_key, destination) WHERE coalescing;
CREATE INDEX notification_kind ON notification (coalesce_key, destination, due_from DESC) WHERE coalesce_key IS NOT NULL;

-- An intake failure that kept nothing (a refused HTTP push: no file lies anywhere) counts the arrivals of its kind
-- (supplier, source, outcome, reason) within one window of ingestor.intake.failure-coalesce-window, starting at
-- window_start, in occurrences, the last at last_occurred_at. A row that names a kept file (location) is one
-- arrival, window_start NULL: each such file is an operator's to look at or retry.
ALTER TABLE intake_failure
    ADD COLUMN occurrences      integer NOT NULL DEFAULT 1,
    ADD COLUMN last_occurred_at timestamptz,
    ADD COLUMN window_start     timestamptz;
CREATE UNIQUE INDEX intake_failure_coalescing ON intake_failure (supplier, source, outcome, md5(reason), window_start)
    WHERE window_start IS NOT NULL;
