-- A title the user gave (a rename): never replaced by one Forkhost derives. A fork not renamed is
-- shown under its first own prompt, read from its native session (the store keeps no message
-- text), else under the label it was made with ("after turn 2 · 2").
ALTER TABLE threads ADD COLUMN title_custom INTEGER NOT NULL DEFAULT 0;
