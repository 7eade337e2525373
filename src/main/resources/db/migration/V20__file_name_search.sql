-- A job found by part of its file name (the console's and the API's q=..., file_name ILIKE '%part%'): a trigram
-- index (pg_trgm) serves it, so that a search costs what its matches cost, not what the year of jobs before them
-- costs. No btree serves a pattern that does not start at the name's start.
--
-- pg_trgm ships with PostgreSQL's contrib (every distribution's package, the official images, the embedded
-- server, the managed services) and is a trusted extension: a user with CREATE on the database, as the owner of the
-- application's database has, may create it. Where it is not installed or not allowed, this migration still
-- succeeds without the index, the search still answers (reading the jobs in list order until a page is found), and
-- docs/operations.md says how a DBA adds it later. The operator class is named with the extension's own schema,
-- wherever an earlier CREATE EXTENSION put it.
DO $$
DECLARE
    trgm_schema text;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm')
            AND EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
        BEGIN
            CREATE EXTENSION pg_trgm;
        EXCEPTION WHEN insufficient_privilege THEN
            RAISE WARNING 'pg_trgm not created (%): searches by part of a file name read the jobs unindexed', SQLERRM;
        END;
    END IF;
    SELECT n.nspname INTO trgm_schema
      FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
     WHERE e.extname = 'pg_trgm';
    IF trgm_schema IS NOT NULL THEN
        EXECUTE format('CREATE INDEX import_job_file_name_trigrams ON import_job USING gin (file_name %I.gin_trgm_ops)',
                       trgm_schema);
    END IF;
END
$$;
