-- A job found by part of its file name (the console's and the API's q=..., file_name ILIKE '%part%'): a trigram
-- index (pg_trgm) serves it, so that a search costs what its matches cost, not what the year of jobs before them
-- costs. No btree serves a pattern that does not start at the name's start.
--
-- pg_trgm ships with PostgreSQL's contrib (every distribution's package, the official images, the embedded server,
-- most managed services) and is a trusted extension: a user with CREATE on the database, as the owner of the
-- application's database has, may create it. Where it is not installed, not allowed (no CREATE on the database, a
-- managed service that must allow-list it first) or not usable, this migration still succeeds without the index: it
-- logs a warning naming why, the search still answers (reading the jobs in list order until a page is found), and
-- docs/operations.md says how a DBA adds it later. The operator class is named with the extension's own schema,
-- wherever an earlier CREATE EXTENSION put it. Without GIN's pending list (fastupdate off): each new job's
-- trigrams go into the index at its insert, a few dozen entries, instead of into a list that every search reads
-- whole until a vacuum merges it (thousands of jobs' entries on a busy day, which made a search several times
-- slower).
DO $$
DECLARE
    trgm_schema text;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
        IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
            BEGIN
                CREATE EXTENSION pg_trgm;
            EXCEPTION WHEN OTHERS THEN
                RAISE WARNING 'pg_trgm not created (SQLSTATE %: %): searches by part of a file name read the jobs'
                    ' unindexed (docs/operations.md, A real PostgreSQL)', SQLSTATE, SQLERRM;
            END;
        ELSE
            RAISE WARNING 'pg_trgm not created (not installed on the server): searches by part of a file name read'
                ' the jobs unindexed (docs/operations.md, A real PostgreSQL)';
        END IF;
    END IF;
    SELECT n.nspname INTO trgm_schema
      FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
     WHERE e.extname = 'pg_trgm';
    IF trgm_schema IS NOT NULL THEN
        BEGIN
            EXECUTE format('CREATE INDEX IF NOT EXISTS import_job_file_name_trigrams ON import_job'
                           ' USING gin (file_name %I.gin_trgm_ops) WITH (fastupdate = off)', trgm_schema);
        EXCEPTION WHEN OTHERS THEN
            -- e.g. the extension in a schema this user may not use
            RAISE WARNING 'trigram index of file names not created (SQLSTATE %: %): searches by part of a file name'
                ' read the jobs unindexed', SQLSTATE, SQLERRM;
        END;
    END IF;
END
$$;
