-- The admin console's searches and throughput chart.
-- A job found by the start of its key (LIKE 'ACME:ab12%'): text_pattern_ops lets a prefix LIKE use the index
-- whatever the database's collation. (A search in file names, ILIKE '%part%', reads the rows: no btree helps.)
CREATE INDEX import_job_key_prefix ON import_job (key text_pattern_ops);
-- Jobs finished per minute: the end states by the time of their last change.
CREATE INDEX import_job_finished ON import_job (updated_at)
    WHERE state IN ('COMPLETED', 'COMPLETED_WITH_ERRORS', 'REJECTED', 'FAILED');
