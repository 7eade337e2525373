-- A job sent round again by an operator (re-validated, reprocessed, or a dead letter replayed from the start) must
-- not make again an effect its earlier run made, nor bring an item back from what a job received after it wrote
-- (dev.ingestor.processing.ItemStore). What that needs to know:
-- import_job.rerun: the job has been sent round again since it was received (never set back);
ALTER TABLE import_job ADD COLUMN rerun boolean NOT NULL DEFAULT false;
-- item.record_no: the record number, in its job's file, of the record that made the item's current content (NULL for
-- items written before this column: such an item's own job counts as having written it with its last record).
ALTER TABLE item ADD COLUMN record_no bigint;
