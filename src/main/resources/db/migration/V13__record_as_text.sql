-- An item's record is kept as the text it was written as: the record's canonical JSON (sorted keys, no
-- insignificant whitespace), made once by the processing stage, which also hashes that same text. As jsonb every
-- record was parsed into PostgreSQL's binary form when written, twice (item and item_version), and printed back
-- into text for its event's payload: about a quarter of the database time of applying a batch (docs/benchmarks.md).
-- Nothing in the application looks inside a stored record; a query that wants to can cast, record::jsonb.
-- The existing rows keep their content; jsonb's text form is JSON too. Both tables are rewritten once.
ALTER TABLE item ALTER COLUMN record TYPE text USING record::text;
ALTER TABLE item_version ALTER COLUMN record TYPE text USING record::text;
