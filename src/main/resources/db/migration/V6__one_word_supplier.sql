-- One word for one party. A partner pushing over HTTP is a supplier with an API key, so the request keys are
-- scoped by supplier, like the content keys, the jobs and the items.
ALTER TABLE http_request RENAME COLUMN partner TO supplier;
