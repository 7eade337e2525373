-- Content keys: the idempotent repository of intake. The primary key, not an application check,
-- decides which of several racing arrivals of the same content creates the job.
CREATE TABLE content_key (
    key         text        PRIMARY KEY,
    supplier    text        NOT NULL,
    sha256      char(64)    NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    created_by  text        NOT NULL,
    CONSTRAINT content_key_shape CHECK (key = supplier || ':' || sha256)
);

CREATE TABLE import_job (
    id               uuid        PRIMARY KEY,
    supplier         text        NOT NULL,
    state            text        NOT NULL,
    key              text        NOT NULL REFERENCES content_key (key),
    file_name        text        NOT NULL,
    size             bigint      NOT NULL CHECK (size >= 0),
    source           text        NOT NULL,
    received_at      timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    duplicate_count  integer     NOT NULL DEFAULT 0,
    last_seen_at     timestamptz,
    total            bigint      NOT NULL DEFAULT 0,
    accepted         bigint      NOT NULL DEFAULT 0,
    updated          bigint      NOT NULL DEFAULT 0,
    replayed         bigint      NOT NULL DEFAULT 0,
    quarantined      bigint      NOT NULL DEFAULT 0,
    error            text,
    CONSTRAINT import_job_state CHECK (state IN ('RECEIVED', 'VALIDATING', 'PROCESSING', 'COMPLETED',
                                                 'COMPLETED_WITH_ERRORS', 'REJECTED', 'FAILED'))
);

-- seed 000: the unique index on the job's key, as well as on the key table itself
CREATE UNIQUE INDEX uq_import_job_key ON import_job (key);
CREATE INDEX import_job_received ON import_job (received_at DESC, id DESC);
CREATE INDEX import_job_supplier_state ON import_job (supplier, state, received_at DESC);
CREATE INDEX import_job_state_received ON import_job (state, received_at DESC);

-- Claims on inbox files, shared by every instance polling the same folder (Camel's idempotent read lock).
-- A claim older than the lease belongs to an instance that died and may be taken over.
CREATE TABLE file_claim (
    claim_key   text        PRIMARY KEY,
    owner       text        NOT NULL,
    claimed_at  timestamptz NOT NULL DEFAULT now()
);
