-- Recovery gives back the keys of requests whose instance died (in progress, their lease run out), every retention
-- interval on every instance. Without an index it read every key kept (30 days of pushes); the requests in flight
-- are a handful, and this partial index holds only them.
CREATE INDEX http_request_in_progress ON http_request (lease_until) WHERE state = 'IN_PROGRESS';
