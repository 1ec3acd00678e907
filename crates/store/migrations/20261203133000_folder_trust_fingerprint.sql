-- What a "trust" decision covered: the project agent config found when the user decided, one
-- `name<TAB>sha256` line per entry (a hash only for the files that define commands). When
-- the config found later differs, a trusted folder is undecided again (Host::folder_trust).
-- NULL for decisions made before this column existed: those count as changed, so a folder
-- trusted earlier is asked about once more (failing closed rather than open).
ALTER TABLE folder_trust ADD COLUMN fingerprint TEXT;
