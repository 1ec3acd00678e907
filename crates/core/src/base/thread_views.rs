//! A thread's view ([`ThreadView`]) as the shells see it: its row, with what the row alone
//! does not say — a Codex thread's default sandbox, a fork's source turn number, and a fork not
//! renamed shown under its first own prompt (docs/architecture.md "Names of forks"). The store
//! keeps no message text, so that name is read from the native session once per fork and
//! naming turn and held in [`ThreadViews`], a field of the Host.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use forkhost_harness::{open_reader, HarnessKind, Role};
use forkhost_store::{Store, ThreadRow};

use crate::base::error::{HostError, HostResult};
use crate::base::view::ThreadView;

/// A name read from a prompt is at most this many characters (an ellipsis included).
pub(crate) const PROMPT_TITLE_CHARS: usize = 60;

/// What views need beyond the rows, learned once per process: thread ids are unique, what a
/// turn's prompt says never changes, and a fork's source and cut are fixed.
#[derive(Default)]
pub(crate) struct ThreadViews {
    /// Forks' names read from their first own prompts: thread id → (naming turn's native ref,
    /// name).
    learned: Mutex<HashMap<String, (String, String)>>,
    /// Forks' sources: thread id → source thread id, to tell siblings whose first own prompts
    /// are the same (a race's lanes).
    sources: Mutex<HashMap<String, String>>,
    /// Forks' source turn numbers: thread id → 1-based number in the source.
    numbers: Mutex<HashMap<String, i64>>,
}

/// The number a label was given among its siblings (`"after turn 2 · 3"` → 3).
fn label_number(label: &str) -> Option<u32> {
    label.rsplit_once(" · ")?.1.parse().ok()
}

/// A prompt as a title: its first line with a text, spaces collapsed, control characters
/// dropped, cut at a word within [`PROMPT_TITLE_CHARS`] with an ellipsis. `None` for a prompt
/// with no words.
pub(crate) fn prompt_title(prompt: &str) -> Option<String> {
    let line = prompt.lines().map(str::trim).find(|l| !l.is_empty())?;
    let words: Vec<String> = line
        .split_whitespace()
        .map(|w| w.chars().filter(|c| !c.is_control()).collect::<String>())
        .filter(|w| !w.is_empty())
        .collect();
    let whole = words.join(" ");
    if whole.is_empty() {
        return None;
    }
    if whole.chars().count() <= PROMPT_TITLE_CHARS {
        return Some(whole);
    }
    let room = PROMPT_TITLE_CHARS - 1;
    let mut out = String::new();
    for word in &words {
        let next = out.chars().count() + usize::from(!out.is_empty()) + word.chars().count();
        if next > room {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    if out.is_empty() {
        // One long word: cut inside it.
        out = whole.chars().take(room).collect();
    }
    Some(format!("{out}…"))
}

/// The first user text of a native file's turn with `native_ref`. Blocking.
fn first_prompt(kind: HarnessKind, path: &PathBuf, native_ref: &str) -> Option<String> {
    let reader = open_reader(kind, path).ok()?;
    let index = reader
        .anchors()
        .iter()
        .position(|a| a.native_turn_ref == native_ref)?;
    let turn = reader.turn(index).ok()?;
    turn.messages
        .iter()
        .find(|m| m.role == Role::User && !m.text.trim().is_empty())
        .map(|m| m.text.clone())
}

impl ThreadViews {
    /// A thread's view, a fork not renamed shown under the name learned from its first own
    /// prompt (see [`ThreadViews::learn`]); `harness_env` is what the harnesses run with (a
    /// Codex thread's default sandbox is read from its config).
    pub(crate) fn view_of(
        &self,
        row: &ThreadRow,
        harness_env: &[(String, String)],
    ) -> HostResult<ThreadView> {
        let mut view = ThreadView::try_from(row)?;
        // A Codex thread with no sandbox chosen names the one it runs in (issue 39).
        if view.harness == forkhost_harness::HarnessKind::Codex
            && view.permissions.sandbox.is_none()
        {
            view.permissions.sandbox = Some(forkhost_harness::codex::default_sandbox(harness_env));
            view.permissions.sandbox_default = true;
        }
        if let Some(fork) = view.fork.as_mut() {
            let numbers = self.numbers.lock().unwrap_or_else(|e| e.into_inner());
            fork.source_turn_number = numbers.get(&row.id).copied();
        }
        if row.fork.is_some() && !row.title_custom {
            let learned = self.learned.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((_, title)) = learned.get(&row.id) {
                view.title = title.clone();
                // Siblings sent the same first prompt (a race's lanes) keep their labels'
                // numbers, in front: a row or tab too narrow for the whole name cuts its end.
                if let Some(n) = label_number(&row.title) {
                    let sources = self.sources.lock().unwrap_or_else(|e| e.into_inner());
                    let source = sources.get(&row.id);
                    let shared = source.is_some()
                        && learned.iter().any(|(id, (_, other))| {
                            id != &row.id && other == title && sources.get(id) == source
                        });
                    if shared {
                        view.title = format!("{n} · {title}");
                    }
                }
            }
        }
        Ok(view)
    }

    /// Learns what the views of `rows` need beyond the rows: each fork's source turn number,
    /// and the first own prompt of each fork that has one and was not renamed, where it is not
    /// known yet (or its naming turn changed). A file that cannot be read leaves the fork under
    /// its label.
    pub(crate) async fn learn(&self, store: &Store, rows: &[ThreadRow]) {
        let only = match rows {
            [one] => Some(one.id.as_str()),
            _ => None,
        };
        let unnumbered = {
            let numbers = self.numbers.lock().unwrap_or_else(|e| e.into_inner());
            rows.iter()
                .any(|r| r.fork.is_some() && !numbers.contains_key(&r.id))
        };
        if unnumbered {
            match store.source_turn_numbers(only).await {
                Ok(found) => self
                    .numbers
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend(found),
                Err(err) => tracing::warn!(error = %err, "reading forks' source turns failed"),
            }
        }
        self.sources
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(rows.iter().filter_map(|r| {
                let fork = r.fork.as_ref()?;
                Some((r.id.clone(), fork.source_thread.clone()))
            }));
        let candidates: HashMap<&str, &ThreadRow> = rows
            .iter()
            .filter(|r| r.fork.is_some() && !r.title_custom && r.native_path.is_some())
            .map(|r| (r.id.as_str(), r))
            .collect();
        if candidates.is_empty() {
            return;
        }
        let naming = match store.first_own_turns(only).await {
            Ok(naming) => naming,
            Err(err) => {
                tracing::warn!(error = %err, "reading forks' first turns failed");
                return;
            }
        };
        let wanted: Vec<(String, String, HarnessKind, PathBuf)> = {
            let learned = self.learned.lock().unwrap_or_else(|e| e.into_inner());
            naming
                .into_iter()
                .filter(|(id, native_ref)| learned.get(id).map(|(r, _)| r) != Some(native_ref))
                .filter_map(|(id, native_ref)| {
                    let row = candidates.get(id.as_str())?;
                    let kind = row.harness.parse().ok()?;
                    let path = PathBuf::from(row.native_path.as_deref()?);
                    Some((id, native_ref, kind, path))
                })
                .collect()
        };
        if wanted.is_empty() {
            return;
        }
        let found = tokio::task::spawn_blocking(move || {
            wanted
                .into_iter()
                .filter_map(|(id, native_ref, kind, path)| {
                    let title = prompt_title(&first_prompt(kind, &path, &native_ref)?)?;
                    Some((id, (native_ref, title)))
                })
                .collect::<Vec<_>>()
        })
        .await
        .map_err(|e| HostError::Internal(e.to_string()));
        match found {
            Ok(found) => self
                .learned
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend(found),
            Err(err) => tracing::warn!(error = %err, "reading forks' first prompts failed"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_labels_number_is_read_back() {
        assert_eq!(label_number("after turn 2 · 3"), Some(3));
        assert_eq!(label_number("after turn 2"), None);
        assert_eq!(label_number("in Codex after turn 2 · 12"), Some(12));
        assert_eq!(label_number("a · b"), None);
    }

    #[test]
    fn a_prompt_becomes_one_short_line() {
        assert_eq!(
            prompt_title("  Fix the\tparser\n\nthen more"),
            Some("Fix the parser".into())
        );
        assert_eq!(prompt_title("\n\n  \n"), None);
        let long = "word ".repeat(30);
        let title = prompt_title(&long).unwrap();
        assert!(title.chars().count() <= PROMPT_TITLE_CHARS, "{title}");
        assert!(title.ends_with("word…"), "{title}");
        let one = "x".repeat(100);
        assert_eq!(
            prompt_title(&one).unwrap().chars().count(),
            PROMPT_TITLE_CHARS
        );
        assert_eq!(prompt_title("a\u{7}b"), Some("ab".into()));
    }
}
