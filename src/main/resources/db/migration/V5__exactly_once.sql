-- An item's revision counts its effects: 1 when ACCEPTED, one more per UPDATE. Events carry it, so a consumer
-- can order the events of one item even when a resend brings an older one late.
ALTER TABLE item ADD COLUMN revision bigint NOT NULL DEFAULT 1;

-- How often a job was taken from a worker whose lease ran out without a word from it. Past
-- ingestor.pipeline.max-takeovers the job is FAILED with a dead letter instead of being taken over again.
-- Back to 0 whenever the job comes to rest, so a job an operator sends round again has its full allowance.
ALTER TABLE import_job ADD COLUMN takeovers integer NOT NULL DEFAULT 0;

-- Kafka's reason when it refused an event for good (too large, invalid). Such an event is recorded as a dead
-- letter of its job and leaves the backlog like a published one (published_at: when the relay was done with it),
-- so it never holds back the events behind it.
ALTER TABLE outbox ADD COLUMN refused text;
