//! An OpenCode session as a [`SessionReader`]: its turns are rows of OpenCode's one database
//! ([`super::opencode_db`]), so a read is a query, and reading what was appended is the same
//! query again (a few milliseconds for a long session) compared with what was read before.
//!
//! OpenCode keeps no file per session. Its "session path" is the database's path with the
//! session id put after it as if the database were a folder (`…/opencode/opencode.db/ses_…`):
//! one path per session, so everything the Host keys by a session's path (the text cache, the
//! search index) keeps sessions apart. [`session_path`] makes one, [`split`] takes it apart.

use std::path::{Path, PathBuf};

use super::opencode_db;
use crate::contract::NativeSession;
use crate::history::{Appended, History, HistoryError, SessionReader, Turn, TurnAnchor};
use crate::{HarnessError, HarnessKind, HarnessResult};

/// The session path of session `id` in the database at `db`.
pub fn session_path(db: &Path, id: &str) -> PathBuf {
    db.join(id)
}

/// The database and the session id a session path names; `None` for a path that names no
/// session under a database (no parent, or an id that is not one word).
pub fn split(path: &Path) -> Option<(&Path, &str)> {
    let id = path.file_name()?.to_str()?;
    let db = path.parent()?;
    let plain = !id.is_empty()
        && !id.starts_with('-')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    (plain && db.file_name().is_some()).then_some((db, id))
}

/// Whether the session a session path names is in its database.
pub fn present(path: &Path) -> bool {
    split(path).is_some_and(|(db, id)| opencode_db::has_session(db, id))
}

/// The coordinates of OpenCode session `id` made in `cwd`, for a process with the extra
/// variables `env` (which say where its database is).
pub fn native(id: String, env: &[(String, String)], cwd: &Path) -> HarnessResult<NativeSession> {
    let db = opencode_db::database(env).ok_or_else(|| {
        HarnessError::InvalidInput("no home folder to find OpenCode's database in".into())
    })?;
    Ok(NativeSession {
        kind: HarnessKind::Opencode,
        path: Some(session_path(&db, &id)),
        session_id: id,
        cwd: cwd.to_owned(),
    })
}

pub struct OpencodeReader {
    path: PathBuf,
    turns: Vec<Turn>,
    anchors: Vec<TurnAnchor>,
}

impl OpencodeReader {
    pub fn open(path: &Path) -> Result<OpencodeReader, HistoryError> {
        let turns = read(path)?;
        Ok(OpencodeReader {
            path: path.to_owned(),
            anchors: turns.iter().map(Turn::anchor).collect(),
            turns,
        })
    }
}

fn read(path: &Path) -> Result<Vec<Turn>, HistoryError> {
    let (db, id) = split(path).ok_or_else(|| HistoryError::SessionNotFound {
        path: path.to_owned(),
    })?;
    opencode_db::read_session(db, id)
}

impl SessionReader for OpencodeReader {
    fn kind(&self) -> HarnessKind {
        HarnessKind::Opencode
    }

    fn path(&self) -> &Path {
        &self.path
    }

    /// Rows, not bytes: nothing is consumed by offset.
    fn read_to(&self) -> u64 {
        0
    }

    fn anchors(&self) -> &[TurnAnchor] {
        &self.anchors
    }

    fn leaf(&self) -> Option<&str> {
        self.turns.last().map(|t| t.native_turn_ref.as_str())
    }

    fn read_appended(&mut self) -> Result<Appended, HistoryError> {
        let turns = read(&self.path)?;
        let anchors: Vec<TurnAnchor> = turns.iter().map(Turn::anchor).collect();
        let same = self
            .anchors
            .iter()
            .zip(&anchors)
            .take_while(|(a, b)| a == b)
            .count();
        // A turn still open may have grown without its anchor changing: read from it.
        let first_changed_turn = match self.anchors.get(same) {
            None if same > 0 && !self.anchors[same - 1].complete => same - 1,
            _ => same,
        };
        let reset = same < self.anchors.len() && anchors.len() < self.anchors.len();
        self.turns = turns;
        self.anchors = anchors;
        Ok(Appended {
            bytes: 0,
            first_changed_turn,
            reset,
        })
    }

    fn turn(&self, index: usize) -> Result<Turn, HistoryError> {
        self.turns
            .get(index)
            .cloned()
            .ok_or(HistoryError::TurnNotFound {
                index,
                len: self.turns.len(),
            })
    }

    fn history(&self) -> Result<History, HistoryError> {
        Ok(History {
            harness: HarnessKind::Opencode,
            session_id: split(&self.path).map(|(_, id)| id.to_owned()),
            forked_from: None,
            turns: self.turns.clone(),
            leaf: self.leaf().map(str::to_owned),
            read_to: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_path_is_the_database_and_an_id() {
        let db = Path::new("/h/.local/share/opencode/opencode.db");
        let path = session_path(db, "ses_abc");
        assert_eq!(split(&path), Some((db, "ses_abc")));
        for bad in ["/", "/h/opencode.db/-x", "/h/opencode.db/a b", "ses_abc"] {
            assert_eq!(split(Path::new(bad)), None, "{bad}");
        }
    }
}
