//! Where Claude Code keeps a session, and finding records in its transcript without parsing
//! the whole file ("Claude Code: where a session's file is" in docs/harness-behaviour.md).
//!
//! `<config dir>/projects/<encoded realpath of cwd>/<session id>.jsonl`, where the config dir is
//! `$CLAUDE_CONFIG_DIR`, else `~/.claude`. The process's own environment is overridden by the
//! extra variables the runtime passes to the CLI, so the path is computed in the CLI's
//! environment, not the host's.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use memchr::memmem;
use serde::Deserialize;

use crate::contract::env_value;
use crate::{HarnessError, HarnessResult};

/// The CLI caps the encoded folder name at this many characters, then appends a hash.
const MAX_ENCODED_LEN: usize = 200;

/// `$CLAUDE_CONFIG_DIR`, else `<home>/.claude` (the home a `HOME` override names, else the
/// user's: `USERPROFILE` on Windows).
pub(crate) fn config_dir(env: &[(String, String)]) -> HarnessResult<PathBuf> {
    if let Some(dir) = env_value(env, "CLAUDE_CONFIG_DIR") {
        return Ok(PathBuf::from(dir));
    }
    crate::home::home_for(env)
        .map(|home| home.join(".claude"))
        .ok_or_else(|| {
            HarnessError::InvalidInput(
                "neither CLAUDE_CONFIG_DIR nor a home folder is known".into(),
            )
        })
}

/// The working directory as the CLI resolves it (symlinks followed); it must exist. On
/// Windows without the `\\?\` prefix `std::fs::canonicalize` adds: Node's `realpath` (what the
/// CLI encodes) has none, and a `.cmd` started in a `\\?\` folder runs in `C:\Windows`.
pub(crate) fn real_cwd(cwd: &Path) -> HarnessResult<PathBuf> {
    dunce::canonicalize(cwd).map_err(|err| {
        HarnessError::InvalidInput(format!("working directory {}: {err}", cwd.display()))
    })
}

/// The project folder name for a (real) cwd: every UTF-16 unit that is not an ASCII letter or
/// digit becomes `-`; past 200 characters, the first 200 plus `-` and the base-36 Java string
/// hash of the unsanitized path (the CLI is JavaScript, so it counts UTF-16 units).
pub(crate) fn project_dir_name(real_cwd: &Path) -> String {
    project_dir_name_of(&real_cwd.to_string_lossy())
}

/// [`project_dir_name`] over the path's text, whichever OS wrote it: `C:\Users\me\proj` is
/// `C--Users-me-proj`. A Windows verbatim prefix (`\\?\C:\…`, `\\?\UNC\server\…`) is
/// dropped first, since the CLI's `realpath` never has one.
pub fn project_dir_name_of(path: &str) -> String {
    let path = strip_verbatim(path);
    let units: Vec<u16> = path.encode_utf16().collect();
    let encoded: String = units
        .iter()
        .map(|&u| match u8::try_from(u) {
            Ok(b) if b.is_ascii_alphanumeric() => char::from(b),
            _ => '-',
        })
        .collect();
    if encoded.len() <= MAX_ENCODED_LEN {
        return encoded;
    }
    let hash = units.iter().fold(0i32, |h, &u| {
        h.wrapping_shl(5).wrapping_sub(h).wrapping_add(i32::from(u))
    });
    format!(
        "{}-{}",
        &encoded[..MAX_ENCODED_LEN],
        base36(u64::from(hash.unsigned_abs()))
    )
}

/// `\\?\C:\x` → `C:\x`, `\\?\UNC\srv\share` → `\\srv\share`; other text unchanged.
pub fn strip_verbatim(path: &str) -> std::borrow::Cow<'_, str> {
    if let Some(rest) = path.strip_prefix(r"\\?\UNC\") {
        return format!(r"\\{rest}").into();
    }
    match path.strip_prefix(r"\\?\") {
        // Only a drive path: `\\?\Volume{…}` has no other spelling.
        Some(rest) if rest.as_bytes().get(1) == Some(&b':') => rest.into(),
        _ => path.into(),
    }
}

fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).unwrap_or_default()
}

/// Where the transcript of `session_id` run in `real_cwd` lives (or will appear).
pub(crate) fn session_path(config_dir: &Path, real_cwd: &Path, session_id: &str) -> PathBuf {
    config_dir
        .join("projects")
        .join(project_dir_name(real_cwd))
        .join(format!("{session_id}.jsonl"))
}

/// The top-level fields of a transcript line that tell whether it is a message record.
#[derive(Deserialize)]
struct RecordHead<'a> {
    #[serde(borrow, rename = "type")]
    ty: Option<&'a str>,
    #[serde(borrow)]
    uuid: Option<&'a str>,
}

/// Whether the transcript holds a `user` or `assistant` record whose own `uuid` is `uuid`:
/// what `--resume-session-at` accepts. Lines are only parsed where the raw bytes match, so the
/// cost is one pass of `memmem` over the file.
pub(crate) fn has_message_record(path: &Path, uuid: &str) -> io::Result<bool> {
    let needle = format!("\"uuid\":\"{uuid}\"");
    let finder = memmem::Finder::new(needle.as_bytes());
    let mut reader = BufReader::with_capacity(256 << 10, File::open(path)?);
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 {
            return Ok(false);
        }
        if finder.find(&line).is_none() {
            continue;
        }
        // A match can sit in a nested object; only the record's own uuid counts. A line that
        // does not parse (one being written, or damaged) is not a record.
        let Ok(head) = serde_json::from_slice::<RecordHead>(line.trim_ascii_end()) else {
            continue;
        };
        if head.uuid == Some(uuid) && matches!(head.ty, Some("user" | "assistant")) {
            return Ok(true);
        }
    }
}

/// Follows a transcript as the CLI appends to it, to learn when a record is on disk: the CLI
/// prints a turn's `result` on stdout some 60–80 ms before its buffered transcript writes land.
/// Only the bytes appended since the last look are read.
#[derive(Debug)]
pub(crate) struct AppendWatch {
    path: PathBuf,
    offset: u64,
    /// The end of what was read before, so a match across two reads is found.
    carry: Vec<u8>,
}

impl AppendWatch {
    pub(crate) fn new(path: PathBuf) -> Self {
        AppendWatch {
            path,
            offset: 0,
            carry: Vec::new(),
        }
    }

    /// Watches only what is appended from now on (a resumed session's history is not read
    /// again).
    pub(crate) fn from_end(path: PathBuf) -> Self {
        let offset = std::fs::metadata(&path).map_or(0, |m| m.len());
        AppendWatch {
            offset,
            ..AppendWatch::new(path)
        }
    }

    /// Whether a record with this `uuid` was appended since the watch started (or since the
    /// last positive answer). A file that does not exist yet holds nothing.
    pub(crate) fn saw_record(&mut self, uuid: &str) -> io::Result<bool> {
        let needle = format!("\"uuid\":\"{uuid}\"");
        let mut file = match File::open(&self.path) {
            Ok(file) => file,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(false),
            Err(err) => return Err(err),
        };
        let len = file.metadata()?.len();
        if len < self.offset {
            // Rewritten under us (never by the CLI itself): start over.
            self.offset = 0;
            self.carry.clear();
        }
        let mut buf = std::mem::take(&mut self.carry);
        std::io::Seek::seek(&mut file, io::SeekFrom::Start(self.offset))?;
        let read = (&mut file).take(len - self.offset).read_to_end(&mut buf)?;
        self.offset += read as u64;
        let found = memmem::find(&buf, needle.as_bytes()).is_some();
        // Keep less than one needle: enough to find a match that straddles two reads, too
        // little to report the same match twice.
        let keep_from = buf.len().saturating_sub(needle.len() - 1);
        self.carry = buf.split_off(keep_from);
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_short_paths_character_by_character() {
        assert_eq!(
            project_dir_name(Path::new("/home/alice/my_proj.v2")),
            "-home-alice-my-proj-v2"
        );
        // One UTF-16 unit per BMP character, two for the rest.
        assert_eq!(project_dir_name(Path::new("/tmp/é")), "-tmp--");
        assert_eq!(project_dir_name(Path::new("/tmp/😀")), "-tmp---");
    }

    #[test]
    fn windows_paths_encode_as_the_cli_does() {
        assert_eq!(project_dir_name_of(r"C:\Users\me\proj"), "C--Users-me-proj");
        assert_eq!(
            project_dir_name_of(r"\\?\C:\Users\me\proj"),
            "C--Users-me-proj"
        );
        assert_eq!(project_dir_name_of(r"C:\proj"), "C--proj");
        assert_eq!(project_dir_name_of(r"\\?\UNC\srv\share\p"), "--srv-share-p");
        assert_eq!(project_dir_name_of(r"\\srv\share\p"), "--srv-share-p");
        assert_eq!(project_dir_name_of(r"D:\my proj\x.y"), "D--my-proj-x-y");
        // macOS: the realpath of a /tmp folder.
        assert_eq!(project_dir_name_of("/private/tmp/p"), "-private-tmp-p");
        assert_eq!(strip_verbatim(r"\\?\Volume{1}\x"), r"\\?\Volume{1}\x");
        assert_eq!(strip_verbatim("/home/x"), "/home/x");
    }

    #[test]
    fn real_cwd_has_no_verbatim_prefix() {
        let dir = tempfile::tempdir().unwrap();
        let real = real_cwd(dir.path()).unwrap();
        assert!(
            !real.to_string_lossy().starts_with(r"\\?\"),
            "{}",
            real.display()
        );
        assert!(real.is_absolute());
        assert!(real_cwd(&dir.path().join("missing")).is_err());
    }

    #[test]
    fn long_paths_get_a_java_string_hash_suffix() {
        let long = format!("/{}", "a".repeat(250));
        let name = project_dir_name(Path::new(&long));
        let mut h: i32 = 0;
        for c in long.chars() {
            h = h.wrapping_mul(31).wrapping_add(c as i32);
        }
        assert_eq!(
            name,
            format!("-{}-{}", "a".repeat(199), base36(h.unsigned_abs().into()))
        );
        assert_eq!(base36(0), "0");
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
        assert_eq!(base36(2147483648), "zik0zk");
    }

    // What the real CLI does with a long non-ASCII folder (the name it hashes and the folder it
    // writes) is checked against both pinned versions by `a_long_cwd_maps_to_the_clis_folder` in
    // tests/tests/harness/claude.rs, in a temporary folder; no recorded path is kept here.

    #[test]
    fn overrides_win_over_the_host_environment() {
        let env = vec![
            ("HOME".to_string(), "/first".to_string()),
            ("HOME".to_string(), "/second".to_string()),
        ];
        assert_eq!(env_value(&env, "HOME").as_deref(), Some("/second"));
        let cfg = vec![("CLAUDE_CONFIG_DIR".to_string(), "/cfg".to_string())];
        assert_eq!(config_dir(&cfg).unwrap(), PathBuf::from("/cfg"));
        assert_eq!(config_dir(&env).unwrap(), PathBuf::from("/second/.claude"));
        // Without any override: the user's home folder (USERPROFILE on Windows), never an error.
        if std::env::var_os("CLAUDE_CONFIG_DIR").is_none() {
            assert_eq!(
                config_dir(&[]).unwrap(),
                crate::home::home_dir().unwrap().join(".claude")
            );
        }
    }

    #[test]
    fn finds_only_a_message_records_own_uuid() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let lines = [
            r#"{"type":"queue-operation","operation":"enqueue"}"#,
            r#"{"type":"user","uuid":"u1","parentUuid":null,"message":{"content":"{\"uuid\":\"a9\"}"}}"#,
            r#"{"type":"attachment","uuid":"x1","parentUuid":"u1","attachment":{"uuid":"n1"}}"#,
            r#"{"type":"assistant","uuid":"a1","parentUuid":"x1"}"#,
            r#"{"type":"last-prompt","leafUuid":"a1"}"#,
            r#"{"type":"assistant","uuid":"a2","#,
        ];
        std::fs::write(&path, lines.join("\n")).unwrap();
        assert!(has_message_record(&path, "u1").unwrap());
        assert!(has_message_record(&path, "a1").unwrap());
        assert!(
            !has_message_record(&path, "a9").unwrap(),
            "text inside a string"
        );
        assert!(
            !has_message_record(&path, "x1").unwrap(),
            "not a message record"
        );
        assert!(!has_message_record(&path, "n1").unwrap(), "a nested uuid");
        assert!(!has_message_record(&path, "a2").unwrap(), "a partial line");
        assert!(has_message_record(&dir.path().join("none.jsonl"), "u1").is_err());
    }

    #[test]
    fn watches_appended_records_across_reads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut watch = AppendWatch::new(path.clone());
        assert!(!watch.saw_record("r1").unwrap(), "no file yet");
        std::fs::write(&path, "{\"type\":\"user\",\"uu").unwrap();
        assert!(!watch.saw_record("r1").unwrap());
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("id\":\"r1\"}\n");
        std::fs::write(&path, &text).unwrap();
        assert!(watch.saw_record("r1").unwrap(), "split across two reads");
        assert!(!watch.saw_record("r1").unwrap(), "already reported");
        text.push_str("{\"uuid\":\"r2\"}\n");
        std::fs::write(&path, &text).unwrap();
        assert!(watch.saw_record("r2").unwrap());
    }
}
