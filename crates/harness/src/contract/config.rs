//! Reading a harness's config files (a project's `.claude/settings.json` or
//! `.codex/config.toml`, the user's own `config.toml`), with the one size limit every reader
//! keeps: such a file is a few KiB, and a huge one is not read at all rather than held in
//! memory.

use std::path::Path;

/// Config files larger than this are not read.
const MAX_CONFIG: u64 = 1024 * 1024;

/// The text of the config file `path`, if it is at most [`MAX_CONFIG`] bytes; otherwise why
/// not, in words a message can carry.
pub(crate) fn read_config(path: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if meta.len() > MAX_CONFIG {
        return Err("too large to read".into());
    }
    std::fs::read_to_string(path).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_file_is_read_unless_missing_or_too_large() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        assert!(read_config(&path).is_err());
        std::fs::write(&path, "model = \"o3\"\n").unwrap();
        assert_eq!(read_config(&path).unwrap(), "model = \"o3\"\n");
        std::fs::File::create(&path)
            .unwrap()
            .set_len(MAX_CONFIG + 1)
            .unwrap();
        assert_eq!(read_config(&path).unwrap_err(), "too large to read");
    }
}
