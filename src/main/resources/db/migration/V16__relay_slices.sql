-- The relay scales out (docs/design.md, Outbox and event ids): the outbox holds only pending events, each in a
-- slice of its topic by its key; relays lease slices; a published (or refused) event leaves the outbox for an
-- archive that retention empties through an index on published_at.

-- How many slices each topic's events are spread over: the one place this number is. Changing it means
-- recomputing outbox.slice and the lease rows, with no relay running.
CREATE FUNCTION outbox_slice_count() RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT 16';

-- Published and refused events, kept for ingestor.retention.outbox-max-age (no primary key: retention finds rows
-- by published_at, and an index per event written is all the archive costs).
CREATE TABLE outbox_published (
    id            bigint      NOT NULL,
    event_id      uuid        NOT NULL,
    topic         text        NOT NULL,
    event_key     text        NOT NULL,
    payload       text        NOT NULL,
    created_at    timestamptz NOT NULL,
    published_at  timestamptz NOT NULL,
    -- Kafka's reason when it refused the event for good (the event is then a dead letter of its job)
    refused       text
);

-- what the relay was done with moves to the archive; the pending backlog stays, with its ids (its order)
INSERT INTO outbox_published (id, event_id, topic, event_key, payload, created_at, published_at, refused)
SELECT id, event_id, topic, event_key, payload, created_at, published_at, refused
FROM outbox WHERE published_at IS NOT NULL ORDER BY id;
DELETE FROM outbox WHERE published_at IS NOT NULL;
CREATE INDEX outbox_published_at ON outbox_published (published_at);

DROP INDEX outbox_unpublished;
-- the slice is a function of the key alone: one key's events are always in one slice, so one relay at a time
-- sends them, in the order of their ids
ALTER TABLE outbox
    DROP COLUMN published_at,
    DROP COLUMN refused,
    ADD COLUMN slice integer NOT NULL
        GENERATED ALWAYS AS (((hashtext(event_key)::bigint + 2147483648) % outbox_slice_count())::integer) STORED;
CREATE INDEX outbox_slice ON outbox (topic, slice, id);

-- One row per (topic, slice), made by the relays when they first meet a topic. A relay holds a slice while
-- expires_at is in the future; expires_at NULL: free. owner: who holds it or held it last (instance/route).
CREATE TABLE outbox_lease (
    topic       text        NOT NULL,
    slice       integer     NOT NULL,
    owner       text,
    expires_at  timestamptz,
    -- when a relay last took the slice: the least recently served slice with work is taken first
    served_at   timestamptz,
    -- the slice's last round had a failure that may pass: its next round sends its first event alone
    one_alone   boolean     NOT NULL DEFAULT false,
    PRIMARY KEY (topic, slice)
);

-- Every event still kept, pending or archived, for reading (operators, tests): an event is in one of them.
CREATE VIEW outbox_all AS
SELECT id, event_id, topic, event_key, payload, created_at, NULL::timestamptz AS published_at, NULL::text AS refused
FROM outbox
UNION ALL
SELECT id, event_id, topic, event_key, payload, created_at, published_at, refused
FROM outbox_published;
