-- A job sent round again by an operator (re-validated, reprocessed, or a dead letter replayed from the start) must
-- not make again an effect its earlier run made, nor bring an item back from what a job received after it wrote
-- (dev.ingestor.processing.ItemStore; the item's side is V27). One table per migration: a rolling deploy's older
-- instance writes item, then import_job, in one transaction, which a migration locking both could deadlock with.
-- import_job.rerun: the job has been sent round again since it was received (never set back).
ALTER TABLE import_job ADD COLUMN rerun boolean NOT NULL DEFAULT false;
