-- A dead letter replayed by an operator keeps its record, with who replayed it and when.
ALTER TABLE dead_letter
    ADD COLUMN replayed_at timestamptz,
    ADD COLUMN replayed_by text;
