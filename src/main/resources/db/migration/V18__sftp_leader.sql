-- Which instance polls each supplier's SFTP server: one row per route (sftp-<CODE>), held by one instance at a time
-- and renewed while it holds it (dev.ingestor.source.file.RouteLeases). A row whose expires_at has passed belongs
-- to an instance that died without giving it back; any instance may take it. Taken and renewed by one statement
-- each (a row lock for the length of that statement only), so it needs no session of its own: PgBouncer in
-- transaction mode is fine. A clean stop deletes the row.
CREATE TABLE route_leader (
    route_id    text PRIMARY KEY,
    -- ingestor.instance-id of the holder, for people
    owner       text NOT NULL,
    -- the holder's run: two processes started with the same instance-id never both hold the lease
    owner_token uuid NOT NULL,
    -- when this holder took it (unchanged by renewals)
    since       timestamptz NOT NULL,
    renewed_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL
);
