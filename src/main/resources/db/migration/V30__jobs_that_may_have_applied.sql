-- Whether an earlier run of a job may have applied records: set when an operator sends the job round again, from the
-- state it is sent from (finished, or processing checkpointed), and kept through later rounds. A job sent round whose
-- file validation can no longer read is then FAILED with a dead letter, for its items may stand; one that never
-- applied anything (a job REJECTED, or failed in validation, and sent round) is REJECTED again, as before.
-- A column with a constant default: no rewrite of the table.
ALTER TABLE import_job ADD COLUMN applied_before boolean NOT NULL DEFAULT false;

-- A job's failure is its latest dead letter of a stage, not of the relay (refused events' letters, which may come after
-- it, and be a million for one job): found from the end of the job's letters of a stage alone.
CREATE INDEX dead_letter_job_failure ON dead_letter (job_id, id) WHERE stage <> 'relay';
