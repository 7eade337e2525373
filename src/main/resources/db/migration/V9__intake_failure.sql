-- Files refused or failed at intake, which never became a job: one row per arrival that was answered by moving
-- the file aside (.rejected/, .failed/), or by an HTTP refusal. outcome: rejected (final: unusable name, too large,
-- empty, unknown supplier folder) or failed (transient, outlasted redelivery; the file can be sent again).
-- supplier is the supplier code, or the folder name when the file lay in no supplier's folder (source stray).
-- location is where the file is now: a local path, a remote path, or NULL when nothing was kept.
CREATE TABLE intake_failure (
    id          bigserial PRIMARY KEY,
    supplier    text        NOT NULL,
    source      text        NOT NULL,
    file_name   text        NOT NULL,
    size        bigint,
    outcome     text        NOT NULL CHECK (outcome IN ('rejected', 'failed')),
    reason      text        NOT NULL,
    occurred_at timestamptz NOT NULL DEFAULT now(),
    location    text,
    retried_at  timestamptz,
    retried_by  text
);
CREATE INDEX intake_failure_newest ON intake_failure (occurred_at DESC, id DESC);
CREATE INDEX intake_failure_supplier ON intake_failure (supplier, occurred_at DESC);
