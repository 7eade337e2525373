-- The raw files retention is to unlink (dev.ingestor.operations.Housekeeping): a key is written here by the
-- transaction that deletes its last job and its content key, and its row goes once its file is unlinked (or kept,
-- because the same bytes arrived again meanwhile). A run interrupted between the two leaves the row, and the next
-- run unlinks the file: before, such a file stayed on disk with nothing left to find it by.
CREATE TABLE raw_file_unlink (
    key    text        PRIMARY KEY,
    since  timestamptz NOT NULL DEFAULT now()
);
