-- The harness of a fork's source when the fork was made: a fork that continues in another
-- harness ("Continue in another agent") says so even after its source is gone. NULL for forks
-- recorded before this column.
ALTER TABLE threads ADD COLUMN fork_source_harness TEXT;
