-- Who handed a job's file in: the API caller (supplier:<CODE> or admin), the SFTP server and folder, or the drop
-- folder. Jobs made before this column stay NULL: nothing recorded who submitted them.
ALTER TABLE import_job ADD COLUMN submitted_by text;
