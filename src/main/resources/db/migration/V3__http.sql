-- HTTP item batches become jobs too (source http-items), keyed by their request, not by their content: a new
-- Idempotency-Key with the same payload is a new job (seed 002). Content keys stay unique for files only,
-- and an items job's key names its stored batch without a content_key row.
ALTER TABLE import_job DROP CONSTRAINT IF EXISTS import_job_key_fkey;
ALTER TABLE import_job
    ADD COLUMN request_key text,
    -- the record format of the stored content when it is not the supplier's own (an items batch is JSON)
    ADD COLUMN format      text;
DROP INDEX uq_import_job_key;
CREATE UNIQUE INDEX uq_import_job_key ON import_job (key) WHERE request_key IS NULL;

-- Request-level idempotency (seed 002, 004): one row per (partner, Idempotency-Key). The row is inserted
-- first, IN_PROGRESS, and its primary key decides between racing requests; the response is stored with the
-- effects in one transaction. A transient failure deletes the row, so the retry runs again.
CREATE TABLE http_request (
    partner          text        NOT NULL,
    idempotency_key  text        NOT NULL,
    fingerprint      char(64)    NOT NULL,
    state            text        NOT NULL CHECK (state IN ('IN_PROGRESS', 'COMPLETED')),
    owner            text        NOT NULL,
    lease_until      timestamptz,
    status           smallint,
    headers          text,
    body             bytea,
    job_id           uuid,
    created_at       timestamptz NOT NULL DEFAULT now(),
    completed_at     timestamptz,
    expires_at       timestamptz NOT NULL,
    PRIMARY KEY (partner, idempotency_key)
);
CREATE INDEX http_request_expires ON http_request (expires_at);
