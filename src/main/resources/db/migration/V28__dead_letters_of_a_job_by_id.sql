-- A job's view reads its latest dead letters (admin API, the console's job detail): a job may have one for every
-- event Kafka refused. By job and id, the latest are read from the index's end, not every letter of the job sorted.
-- The job's index alone served the cascade from import_job, which this one serves as well.
CREATE INDEX dead_letter_job_id ON dead_letter (job_id, id);
DROP INDEX dead_letter_job;
