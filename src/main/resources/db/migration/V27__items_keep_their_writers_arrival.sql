-- When the job that wrote an item's current content was received (dev.ingestor.processing.ItemStore): where the
-- content decides, a re-run's record (a job an operator sent round again) over an item that a job received after its
-- own wrote is a REPLAY, however long ago that job's row was deleted. NULL for items written before this column: the
-- writer's row decides while it is kept.
ALTER TABLE item ADD COLUMN job_received_at timestamptz;
