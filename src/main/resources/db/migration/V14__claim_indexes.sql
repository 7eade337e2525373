-- What a stage worker's claim reads (dev.ingestor.job.JobLifecycle#claim): the oldest job waiting for its stage
-- (no lease owner), and the oldest job of its stage whose lease ran out. Both used to be read off one index of
-- every job in arrival order, with the state as a filter, so a processing worker walked past every RECEIVED job
-- before it found one waiting for processing: with 5,000 one-record files waiting a claim read about 3,000 rows
-- on average (0.9 ms), 5,000 when nothing waited, and a backlog made every claim slower the longer it grew.
-- One index per question, each read from where its answer starts; the claim names the states as literals, so
-- the planner can prove the predicates and use these indexes in a prepared statement's generic plan.
CREATE INDEX import_job_waiting ON import_job (state, received_at, id)
    WHERE lease_owner IS NULL AND state IN ('RECEIVED', 'PROCESSING');

-- Only jobs a worker holds have a lease owner: a handful, whatever the table's size.
CREATE INDEX import_job_held ON import_job (state, received_at, id)
    WHERE lease_owner IS NOT NULL;
