-- Notifications for the operators' webhook: the webhook's own outbox. A row is written in the transaction of the
-- fact it reports (a job FAILED, a dead letter, an intake failure, a stalled relay), so there is no notification
-- of something that was rolled back and none is lost to a crash. It is kept apart from the Kafka outbox on
-- purpose: a stalled Kafka relay must not hold back the notification that says so, and a webhook that is down
-- must not hold back Kafka events.
-- event_id is chosen once and sent with every attempt, so a receiver can drop a resend. destination is '*' for
-- the installation-wide webhook or the supplier code whose own webhook it is: the secret that signs the body is
-- looked up by it in the configuration, never stored. payload is the exact JSON body sent.
CREATE TABLE notification (
    id              bigserial   PRIMARY KEY,
    event_id        uuid        NOT NULL,
    type            text        NOT NULL,
    supplier        text,
    destination     text        NOT NULL,
    url             text        NOT NULL,
    payload         text        NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    attempts        integer     NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    delivered_at    timestamptz,
    gave_up_at      timestamptz,
    last_error      text,
    UNIQUE (event_id, destination)
);
CREATE INDEX notification_due ON notification (next_attempt_at, id) WHERE delivered_at IS NULL AND gave_up_at IS NULL;

-- One row: since when the Kafka relay counts as stalled (NULL: it does not). Locked by the check, so two
-- instances write one relay.stalled notification per episode between them.
CREATE TABLE relay_stall (
    one           boolean     PRIMARY KEY DEFAULT true CHECK (one),
    stalled_since timestamptz
);
