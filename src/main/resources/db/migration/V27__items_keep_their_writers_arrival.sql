-- What a re-run needs to know of an item's current content (dev.ingestor.processing.ItemStore, V25):
-- record_no: the record number, in its job's file, of the record that wrote it (NULL for items written before this
--   column: such an item's own job counts as having written it with its last record);
-- job_received_at: when the job that wrote it was received: where the content decides, a re-run's record over an item
--   that a job received after its own wrote is a REPLAY, however long ago that job's row was deleted (NULL for items
--   written before this column: the writer's row decides while it is kept).
ALTER TABLE item ADD COLUMN record_no bigint, ADD COLUMN job_received_at timestamptz;
