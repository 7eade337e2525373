-- Tombstones: a record marked deleted retires its item (INACTIVE) instead of removing the row, so the item keeps
-- its version and a late older record is still a REPLAY; a later higher version makes it ACTIVE again. Every item
-- that exists today is ACTIVE (docs/design.md, Version rules).
ALTER TABLE item ADD COLUMN state text NOT NULL DEFAULT 'ACTIVE'
    CONSTRAINT item_state CHECK (state IN ('ACTIVE', 'INACTIVE'));

-- Each item's history for audit: one row per effect (ACCEPTED, UPDATED, DELETED), written by the statement that
-- makes the effect, so an item's past no longer lives only in its events. Items changed before this migration
-- have their history from their next effect on.
CREATE TABLE item_version (
    supplier        text        NOT NULL,
    source_id       text        NOT NULL,
    revision        bigint      NOT NULL,
    source_version  bigint,
    outcome         text        NOT NULL,
    state           text        NOT NULL,
    record          jsonb       NOT NULL,
    job_id          uuid        NOT NULL,
    event_id        uuid        NOT NULL,
    recorded_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (supplier, source_id, revision)
);
