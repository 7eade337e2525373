-- A year of a busy installation, generated with SQL into the tables as the migrations leave them
-- (YearOfDataBenchmark, docs/benchmarks.md "A year of data"). Run by bench/YearOfData on one superuser connection.
--
-- Format: a line "-- step: <name>" starts a step that runs once; "-- step: <name> rows=<count>" one that runs in
-- chunks over 1..<count> (${lo}..${hi}, one transaction each, progress logged); "-- due: <name>" a step of the set
-- of rows one retention round finds due, run before each such round (${round} makes its rows new each time);
-- "-- helpers: <name>" functions both kinds call, made (again) before the fill and before each due set.
-- Placeholders, filled in by YearOfData: ${jobs}, ${items}, ${versions} (per item), ${events}, ${http},
-- ${failures}, ${pending}, ${due} (jobs in the due set), ${t0} (the moment the run started, a timestamptz literal).
--
-- The shape, at scale 1: 5,000,000 jobs over the 360 days before ${t0} (none older than the shipped job retention
-- of 365 days), 94% COMPLETED, 4% COMPLETED_WITH_ERRORS (2 quarantined records each), 1.5% REJECTED, 0.5%
-- FAILED (a dead letter each), the newest ${pending} held by another, live instance (PROCESSING, lease running);
-- 5,000,000 items with 4 versions each (20,000,000 versions) and 20,000,000 published events; 1,000,000 keyed HTTP
-- requests with stored answers over the last 29 days (the shipped key lifetime is 30) and 100,000 intake failures
-- over the last 89 days (the shipped retention is 90). Every job, version and event is a function of its number,
-- so a chunk can be generated on its own and the data is the same in every run.
-- Known simplifications: a version's job is picked by time, not by supplier; rejected and failed jobs carry
-- versions too. None of it changes what the measured statements read.

-- helpers: functions
-- a UUID of version 7 as the application makes a job's id: the first 48 bits the milliseconds of its arrival, so
-- the ids of a month's jobs lie together in every index by job (the rest of the bits from the seed)
CREATE OR REPLACE FUNCTION pg_temp.uuid7(at timestamptz, seed text) RETURNS uuid LANGUAGE sql IMMUTABLE AS $$
  SELECT (lpad(to_hex((extract(epoch FROM at) * 1000)::bigint), 12, '0') || '7' || substr(md5(seed), 1, 3) || '8'
          || substr(md5(seed), 4, 15))::uuid $$;
CREATE OR REPLACE FUNCTION pg_temp.job_supplier(i bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN i % 10 < 5 THEN 'ACME' WHEN i % 10 < 8 THEN 'GLOBEX' ELSE 'SPLITCO' END $$;
CREATE OR REPLACE FUNCTION pg_temp.job_at(i bigint) RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
  SELECT ${t0} - interval '1 day' - interval '359 days' * ((${jobs} - i)::float8 / ${jobs}) $$;
CREATE OR REPLACE FUNCTION pg_temp.job_id(i bigint) RETURNS uuid LANGUAGE sql IMMUTABLE AS $$
  SELECT pg_temp.uuid7(pg_temp.job_at(i), 'job-' || i) $$;
CREATE OR REPLACE FUNCTION pg_temp.job_state(i bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN i > ${jobs} - ${pending} THEN 'PROCESSING'
              WHEN (i * 7919) % 1000 < 940 THEN 'COMPLETED'
              WHEN (i * 7919) % 1000 < 980 THEN 'COMPLETED_WITH_ERRORS'
              WHEN (i * 7919) % 1000 < 995 THEN 'REJECTED'
              ELSE 'FAILED' END $$;
-- version r of item k, numbered n = (r - 1) * items + k; its job is the one at the same point of the year
CREATE OR REPLACE FUNCTION pg_temp.version_job(k bigint, r bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT 1 + (((r - 1) * ${items} + k - 1) * ${jobs}) / (${items}::bigint * ${versions}) $$;
CREATE OR REPLACE FUNCTION pg_temp.event_id(n bigint) RETURNS uuid LANGUAGE sql IMMUTABLE AS $$
  SELECT md5('event-' || n)::uuid $$;
CREATE OR REPLACE FUNCTION pg_temp.source_id(k bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT 'SRC-' || lpad(k::text, 9, '0') $$;
CREATE OR REPLACE FUNCTION pg_temp.record(k bigint, r bigint) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('source_id', pg_temp.source_id(k), 'sku', 'SKU-' || (k % 50000),
    'quantity', (k % 97) + r, 'delivery_date', '2026-12-' || lpad((1 + k % 28)::text, 2, '0'),
    'warehouse', 'WH-' || (k % 20)) $$;

-- step: the file-name search's months, each made ahead of its jobs as housekeeping makes them
SELECT job_file_name_month(m AT TIME ZONE 'UTC')
FROM generate_series(date_trunc('month', (${t0} - interval '361 days') AT TIME ZONE 'UTC'),
                     date_trunc('month', ${t0} AT TIME ZONE 'UTC'), interval '1 month') AS m;

-- step: content keys and jobs rows=jobs
WITH j AS (
  SELECT i, pg_temp.job_id(i) AS id, pg_temp.job_supplier(i) AS supplier, pg_temp.job_at(i) AS at,
         pg_temp.job_state(i) AS state, encode(sha256(int8send(i)), 'hex') AS sha
  FROM generate_series(${lo}::bigint, ${hi}::bigint) AS i),
k AS (
  INSERT INTO content_key (key, supplier, sha256, created_at, created_by)
  SELECT supplier || ':' || sha, supplier, sha, at, 'year-bench' FROM j)
INSERT INTO import_job (id, supplier, state, key, file_name, size, source, received_at, updated_at,
                        duplicate_count, last_seen_at, total, accepted, updated, replayed, quarantined, error,
                        lease_owner, lease_until, attempts, records_done, takeovers, request_key, format,
                        submitted_by)
SELECT id, supplier, state, supplier || ':' || sha,
       'delivery-' || to_char(at, 'YYYYMMDD') || '-' || i || '.csv', 4096 + i % 100000,
       CASE i % 4 WHEN 0 THEN 'http' WHEN 1 THEN 'sftp' ELSE 'file-drop' END,
       at, CASE WHEN state = 'PROCESSING' THEN at ELSE at + interval '3 seconds' END,
       CASE WHEN i % 50 = 0 THEN 1 ELSE 0 END, CASE WHEN i % 50 = 0 THEN at + interval '1 hour' END,
       CASE WHEN state = 'REJECTED' THEN 0 ELSE ${versions} END,
       CASE WHEN state IN ('COMPLETED', 'COMPLETED_WITH_ERRORS') THEN 1 ELSE 0 END,
       CASE WHEN state = 'COMPLETED' THEN ${versions} - 1 WHEN state = 'COMPLETED_WITH_ERRORS' THEN ${versions} - 3
            ELSE 0 END,
       0, CASE WHEN state = 'COMPLETED_WITH_ERRORS' THEN 2 ELSE 0 END,
       CASE state WHEN 'REJECTED' THEN 'the file is not a CSV file of the supplier''s format: header missing'
                  WHEN 'FAILED' THEN 'processing failed after 5 attempts: could not serialize access' END,
       CASE WHEN state = 'PROCESSING' THEN 'year-bench-other' END,
       CASE WHEN state = 'PROCESSING' THEN ${t0} + interval '1 day' END,
       1, CASE WHEN state = 'PROCESSING' THEN 0 ELSE ${versions} END, 0, NULL, 'CSV',
       CASE WHEN i % 4 = 0 THEN supplier END
FROM j;

-- step: quarantined records rows=jobs
INSERT INTO job_record (job_id, record_no, line, outcome, source_id, reason, fields)
SELECT pg_temp.job_id(i), r, r + 1, 'QUARANTINED', 'BAD-' || i || '-' || r,
       'quantity: not a whole number',
       jsonb_build_object('source_id', 'BAD-' || i || '-' || r, 'sku', 'SKU-1', 'quantity', 'a dozen')
FROM generate_series(${lo}::bigint, ${hi}::bigint) AS i CROSS JOIN generate_series(1, 2) AS r
WHERE pg_temp.job_state(i) = 'COMPLETED_WITH_ERRORS';

-- step: dead letters rows=jobs
INSERT INTO dead_letter (job_id, stage, exception, message, attempts, created_at)
SELECT pg_temp.job_id(i), 'processing', 'org.springframework.dao.CannotSerializeTransactionException',
       'could not serialize access due to concurrent update', 5, pg_temp.job_at(i) + interval '2 minutes'
FROM generate_series(${lo}::bigint, ${hi}::bigint) AS i
WHERE pg_temp.job_state(i) = 'FAILED';

-- step: items rows=items
INSERT INTO item (supplier, source_id, source_version, record_hash, record, job_id, created_at, updated_at,
                  revision, state)
SELECT pg_temp.job_supplier(k), pg_temp.source_id(k), NULL,
       encode(sha256(convert_to(pg_temp.record(k, ${versions})::text, 'UTF8')), 'hex'),
       pg_temp.record(k, ${versions})::text, pg_temp.job_id(pg_temp.version_job(k, ${versions})),
       pg_temp.job_at(pg_temp.version_job(k, 1)), pg_temp.job_at(pg_temp.version_job(k, ${versions})),
       ${versions}, CASE WHEN k % 50 = 0 THEN 'INACTIVE' ELSE 'ACTIVE' END
FROM generate_series(${lo}::bigint, ${hi}::bigint) AS k;

-- step: item versions rows=items
INSERT INTO item_version (supplier, source_id, revision, source_version, outcome, state, record, job_id, event_id,
                          recorded_at)
SELECT pg_temp.job_supplier(k), pg_temp.source_id(k), r, NULL,
       CASE WHEN r = 1 THEN 'ACCEPTED' ELSE 'UPDATED' END,
       CASE WHEN r = ${versions} AND k % 50 = 0 THEN 'INACTIVE' ELSE 'ACTIVE' END,
       pg_temp.record(k, r), pg_temp.job_id(pg_temp.version_job(k, r)),
       pg_temp.event_id((r - 1) * ${items} + k), pg_temp.job_at(pg_temp.version_job(k, r))
FROM generate_series(${lo}::bigint, ${hi}::bigint) AS k CROSS JOIN generate_series(1, ${versions}) AS r;

-- step: published events rows=events
-- in the archive the relay moves them to (ids as the outbox gave them; the due ones below are negative)
-- event n is version n's (while there are versions), in the order they were written
INSERT INTO outbox_published (id, event_id, topic, event_key, payload, created_at, published_at)
SELECT n, pg_temp.event_id(n), 'ingestor.items', pg_temp.job_supplier(k) || ':' || pg_temp.source_id(k),
       jsonb_build_object('eventId', pg_temp.event_id(n), 'type', CASE WHEN r = 1 THEN 'ACCEPTED' ELSE 'UPDATED' END,
                          'supplier', pg_temp.job_supplier(k), 'sourceId', pg_temp.source_id(k), 'revision', r,
                          'jobId', pg_temp.job_id(pg_temp.version_job(k, r)), 'record', pg_temp.record(k, r))::text,
       pg_temp.job_at(pg_temp.version_job(k, r)), pg_temp.job_at(pg_temp.version_job(k, r)) + interval '1 second'
FROM (SELECT n, 1 + (n - 1) % ${items} AS k, 1 + ((n - 1) / ${items}) % ${versions} AS r
      FROM generate_series(${lo}::bigint, ${hi}::bigint) AS n) e;

-- step: keyed HTTP requests with stored answers rows=http
INSERT INTO http_request (supplier, idempotency_key, fingerprint, state, owner, lease_until, status, headers, body,
                          job_id, created_at, completed_at, expires_at)
SELECT s, 'batch-' || h, encode(sha256(int8send(h)), 'hex'), 'COMPLETED', 'year-bench/1', NULL, 202,
       '{"Content-Type":"application/json","Location":"/api/v1/jobs/' || pg_temp.job_id(${jobs} - h % ${jobs}) || '"}',
       convert_to('{"jobId":"' || pg_temp.job_id(${jobs} - h % ${jobs}) || '","state":"RECEIVED","duplicate":false,'
                  || '"links":{"self":"/api/v1/jobs/' || pg_temp.job_id(${jobs} - h % ${jobs}) || '"}}', 'UTF8'),
       pg_temp.job_id(${jobs} - h % ${jobs}), at, at + interval '20 milliseconds', at + interval '30 days'
FROM (SELECT h, CASE WHEN h % 2 = 0 THEN 'ACME' ELSE 'GLOBEX' END AS s,
             ${t0} - interval '1 hour' - interval '28 days' * ((${http} - h)::float8 / ${http}) AS at
      FROM generate_series(${lo}::bigint, ${hi}::bigint) AS h) r;

-- step: intake failures rows=failures
INSERT INTO intake_failure (supplier, source, file_name, size, outcome, reason, occurred_at, location, retried_at,
                            retried_by, occurrences, last_occurred_at, window_start)
SELECT CASE WHEN f % 3 = 0 THEN 'GLOBEX' ELSE 'ACME' END, 'file-drop', 'broken-' || f || '.csv', 1000 + f % 5000,
       CASE WHEN f % 10 = 0 THEN 'failed' ELSE 'rejected' END,
       CASE WHEN f % 10 = 0 THEN 'the database did not answer within 30 s' ELSE 'the file is not UTF-8' END,
       at, '.rejected/broken-' || f || '.csv', CASE WHEN f % 10 = 0 THEN at + interval '1 hour' END,
       CASE WHEN f % 10 = 0 THEN 'admin' END, 1, at, NULL
FROM (SELECT f, ${t0} - interval '1 hour' - interval '88 days' * ((${failures} - f)::float8 / ${failures}) AS at
      FROM generate_series(${lo}::bigint, ${hi}::bigint) AS f) r;

-- due: jobs past their retention, with their content keys
WITH j AS (
  SELECT i, pg_temp.uuid7(at, 'due-' || ${round} || '-' || i) AS id,
         encode(sha256(convert_to('due-' || ${round} || '-' || i, 'UTF8')), 'hex') AS sha, at
  FROM generate_series(1, ${due}) AS i, LATERAL (SELECT now() - interval '400 days' AS at) AS x),
k AS (
  INSERT INTO content_key (key, supplier, sha256, created_at, created_by)
  SELECT 'ACME:' || sha, 'ACME', sha, at, 'year-bench' FROM j)
INSERT INTO import_job (id, supplier, state, key, file_name, size, source, received_at, updated_at, total, accepted,
                        format)
SELECT id, 'ACME', 'COMPLETED', 'ACME:' || sha, 'old-' || ${round} || '-' || i || '.csv', 4096, 'file-drop', at, at,
       1, 1, 'CSV'
FROM j;

-- due: published events past their retention
INSERT INTO outbox_published (id, event_id, topic, event_key, payload, created_at, published_at)
SELECT -(${round} * 1000000 + e), md5('due-event-' || ${round} || '-' || e)::uuid, 'ingestor.items', 'ACME:OLD-' || e, '{"old":true}',
       now() - interval '400 days', now() - interval '400 days'
FROM generate_series(1, ${due} * 5) AS e;

-- due: expired HTTP keys
INSERT INTO http_request (supplier, idempotency_key, fingerprint, state, owner, status, headers, body, created_at,
                          completed_at, expires_at)
SELECT 'ACME', 'due-' || ${round} || '-' || h, repeat('0', 64), 'COMPLETED', 'year-bench/1', 202, '{}',
       convert_to('{}', 'UTF8'), now() - interval '31 days', now() - interval '31 days', now() - interval '1 day'
FROM generate_series(1, ${due}) AS h;

-- due: intake failures past their retention
INSERT INTO intake_failure (supplier, source, file_name, outcome, reason, occurred_at)
SELECT 'ACME', 'file-drop', 'old-' || ${round} || '-' || f || '.csv', 'rejected', 'the file is not UTF-8',
       now() - interval '100 days'
FROM generate_series(1, ${due}) AS f;
