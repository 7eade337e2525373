-- Durable hand-off between stages: a stage claims a job with FOR UPDATE SKIP LOCKED and holds a lease; a job
-- whose lease ran out belongs to a worker that died and is claimed again. records_done is the processing
-- checkpoint, committed with each batch of effects.
ALTER TABLE import_job
    ADD COLUMN lease_owner  text,
    ADD COLUMN lease_until  timestamptz,
    ADD COLUMN attempts     integer NOT NULL DEFAULT 0,
    ADD COLUMN records_done bigint  NOT NULL DEFAULT 0;

CREATE INDEX import_job_pending ON import_job (received_at, id)
    WHERE state IN ('RECEIVED', 'VALIDATING', 'PROCESSING');

-- Quarantined records of a job, each with the reason a person can act on.
CREATE TABLE job_record (
    job_id     uuid   NOT NULL REFERENCES import_job (id) ON DELETE CASCADE,
    record_no  bigint NOT NULL,
    line       bigint NOT NULL,
    outcome    text   NOT NULL CHECK (outcome IN ('QUARANTINED')),
    source_id  text,
    reason     text   NOT NULL,
    fields     jsonb,
    PRIMARY KEY (job_id, record_no)
);

-- Item-level idempotency: one row per (supplier, source_id), the newest version accepted.
CREATE TABLE item (
    supplier        text        NOT NULL,
    source_id       text        NOT NULL,
    source_version  bigint,
    record_hash     char(64)    NOT NULL,
    record          jsonb       NOT NULL,
    job_id          uuid        NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (supplier, source_id)
);

-- Transactional outbox: written in the transaction of the effect, published to Kafka by the relay route.
CREATE TABLE outbox (
    id            bigserial   PRIMARY KEY,
    event_id      uuid        NOT NULL,
    topic         text        NOT NULL,
    event_key     text        NOT NULL,
    payload       text        NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    published_at  timestamptz
);
CREATE INDEX outbox_unpublished ON outbox (topic, id) WHERE published_at IS NULL;

CREATE TABLE dead_letter (
    id          bigserial   PRIMARY KEY,
    job_id      uuid        REFERENCES import_job (id) ON DELETE CASCADE,
    stage       text        NOT NULL,
    exception   text        NOT NULL,
    message     text,
    attempts    integer     NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX dead_letter_job ON dead_letter (job_id);
