//! Search everything (docs/architecture.md "Search"): every thread's own turns, in every
//! harness, and the native sessions on this machine not adopted yet. The store keeps no
//! message text, so search reads the transcripts themselves on each query: a fast pass over
//! the raw JSONL on all cores ([`scan`]) picks the files that can hold a hit, and only those
//! are decoded by the readers (through the text cache) and matched message by message
//! ([`matcher`]). A fork's file holds the turns it inherited too; those are its source's
//! hits, never the fork's: each message is found once, in the thread that owns its turn.
//!
//! Calls: `thread` and the base.

mod copies;
mod matcher;
mod scan;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime};

use forkhost_harness::{HarnessKind, Message, Role, Turn};
use forkhost_store::{Boundary, ThreadRow, ThreadState};
use serde::{Deserialize, Serialize};

use crate::base::error::{HostError, HostResult};
use crate::host::Host;
use matcher::{snippet, Matcher};
use scan::{candidates, Prefilter, ScanStats};

/// The longest query searched; a longer one is refused before anything is read.
pub const MAX_QUERY_BYTES: usize = 64 * 1024;
/// Hits returned when the query names no limit, and the most it may ask for.
const DEFAULT_LIMIT: usize = 200;
const MAX_LIMIT: usize = 5_000;

/// What to search for, and where.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SearchQuery {
    /// Literal text, in any case, unless `regex` (a regular expression, in any case too).
    pub text: String,
    #[serde(default)]
    pub regex: bool,
    #[serde(default)]
    pub harness: Option<HarnessKind>,
    /// Only threads and sessions whose folder is this one or inside it.
    #[serde(default)]
    pub folder: Option<String>,
    /// At most this many hits (default 200, at most 5000); the search stops once it has them.
    #[serde(default)]
    #[ts(type = "number | null")]
    pub limit: Option<usize>,
}

/// Which part of a message the hit is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum HitPart {
    UserText,
    Reply,
    ToolInput,
    ToolOutput,
}

/// One message that holds the query (its first hit).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SearchHit {
    /// The host turn id; `None` in a session not adopted, or a turn not recorded yet (still
    /// being written).
    pub turn_id: Option<String>,
    /// 1-based, as the thread view numbers its turns.
    #[ts(type = "number")]
    pub turn_number: i64,
    /// The message's index among the turn's messages as the thread view lists them.
    #[ts(type = "number")]
    pub message_index: usize,
    pub part: HitPart,
    /// The words around the hit, on one line.
    pub snippet: String,
    /// The hit in `snippet`, as UTF-8 byte offsets.
    #[ts(type = "number")]
    pub hit_start: usize,
    #[ts(type = "number")]
    pub hit_end: usize,
}

/// A native session on disk that no thread holds yet (`forkhost import` adopts it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SearchSession {
    pub harness: HarnessKind,
    pub session_id: Option<String>,
    pub path: String,
}

/// The hits of one thread (or one session not adopted), in turn order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SearchGroup {
    /// The thread the hits belong to; `None` for a session not adopted (see `session`).
    pub thread_id: Option<String>,
    pub session: Option<SearchSession>,
    pub title: String,
    pub harness: HarnessKind,
    pub cwd: Option<String>,
    pub hits: Vec<SearchHit>,
    /// The remote host whose thread this is (its `thread_id` then `HOST:ID`); absent for
    /// this machine's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub host: Option<String>,
}

/// Groups newest first (by their transcript's last change).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct SearchResults {
    pub groups: Vec<SearchGroup>,
    #[ts(type = "number")]
    pub hits: usize,
    /// The limit was reached: there may be more hits.
    pub truncated: bool,
    /// Transcript files read, their bytes, and how many were decoded.
    #[ts(type = "number")]
    pub files: usize,
    #[ts(type = "number")]
    pub bytes: u64,
    #[ts(type = "number")]
    pub decoded: usize,
    pub elapsed_ms: f64,
}

/// Who a transcript file's hits belong to.
enum Owner {
    /// A thread, from its first own turn on (0-based index in the file): earlier turns are
    /// inherited.
    Thread {
        row: Box<ThreadRow>,
        own_from: usize,
    },
    /// A session no thread holds.
    Session { session_id: Option<String> },
}

struct Job {
    path: PathBuf,
    kind: HarnessKind,
    owner: Owner,
}

/// What the exact pass found in one file.
struct FileHits {
    job: usize,
    /// (0-based turn index, native turn ref, hit).
    hits: Vec<(usize, String, SearchHit)>,
    first_prompt: Option<String>,
    cwd: Option<String>,
}

impl Host {
    /// Searches every thread's own turns and the sessions not adopted yet. An empty query, one
    /// over [`MAX_QUERY_BYTES`] or a bad regular expression is `invalid_input`.
    pub async fn search(&self, query: SearchQuery) -> HostResult<SearchResults> {
        self.search_until(query, Arc::new(AtomicBool::new(false)))
            .await
    }

    /// [`Host::search`] that stops reading as soon as `cancel` is set (a newer query replaced
    /// it while the user typed); it then returns what it found so far, marked `truncated`.
    pub async fn search_until(
        &self,
        query: SearchQuery,
        cancel: Arc<AtomicBool>,
    ) -> HostResult<SearchResults> {
        let started = Instant::now();
        let (matcher, prefilter) = compile(&query)?;
        let limit = query.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT);
        let folder = match query.folder.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(f) => Some(dunce::canonicalize(f).unwrap_or_else(|_| PathBuf::from(f))),
        };
        let rows = self.store().threads().await?;
        let numbers: HashMap<String, i64> = self
            .store()
            .source_turn_numbers(None)
            .await?
            .into_iter()
            .collect();
        let mut jobs = thread_jobs(&rows, &numbers, query.harness, folder.as_deref());
        let roots: Vec<(HarnessKind, PathBuf)> = HarnessKind::ALL
            .into_iter()
            .filter(|k| query.harness.is_none_or(|h| h == *k))
            .filter_map(|k| Some((k, self.session_root(k)?)))
            .collect();
        let host = self.clone();
        let (jobs, found, stats, truncated) = tokio::task::spawn_blocking(move || {
            add_sessions(&mut jobs, &rows, &roots);
            newest_first(&mut jobs);
            let run = Run {
                host: &host,
                jobs: &jobs,
                matcher: &matcher,
                folder: folder.as_deref(),
                limit,
                stop: AtomicBool::new(false),
                count: AtomicUsize::new(0),
                found: Mutex::new(Vec::new()),
            };
            // A session that is database rows has no bytes to prefilter: its reader reads it
            // (an empty path is skipped by the scan).
            let raw = |j: &Job| j.kind.harness().session_is_a_file();
            let paths: Vec<PathBuf> = jobs
                .iter()
                .map(|j| {
                    if raw(j) {
                        j.path.clone()
                    } else {
                        PathBuf::new()
                    }
                })
                .collect();
            let stats = ScanStats::default();
            let stop = || run.stop.load(Ordering::Relaxed) || cancel.load(Ordering::Relaxed);
            for (i, _) in jobs.iter().enumerate().filter(|(_, j)| !raw(j)) {
                if stop() {
                    break;
                }
                run.file(i);
            }
            candidates(&paths, &prefilter, &stop, &stats, &|i| run.file(i));
            let truncated = stop();
            let found = run.found.into_inner().unwrap_or_else(|e| e.into_inner());
            (jobs, found, stats, truncated)
        })
        .await
        .map_err(|e| HostError::Internal(e.to_string()))?;
        self.groups(jobs, found, stats, truncated, limit, started)
            .await
    }

    /// The exact pass's findings as groups: host turn ids and titles from the store.
    async fn groups(
        &self,
        jobs: Vec<Job>,
        mut found: Vec<FileHits>,
        stats: ScanStats,
        truncated: bool,
        limit: usize,
        started: Instant,
    ) -> HostResult<SearchResults> {
        found.sort_by_key(|f| f.job);
        let mut jobs: Vec<Option<Job>> = jobs.into_iter().map(Some).collect();
        copies::drop_copies(&mut found, &jobs);
        let rows: Vec<ThreadRow> = found
            .iter()
            .filter_map(|f| match &jobs[f.job].as_ref()?.owner {
                Owner::Thread { row, .. } => Some((**row).clone()),
                Owner::Session { .. } => None,
            })
            .collect();
        self.learn_titles(&rows).await;
        let mut groups = Vec::new();
        let mut total = 0;
        for file in found {
            if total >= limit {
                break;
            }
            if file.hits.is_empty() {
                continue;
            }
            let Some(job) = jobs[file.job].take() else {
                continue;
            };
            let mut hits: Vec<(usize, String, SearchHit)> = file.hits;
            hits.sort_by_key(|(turn, _, h)| (*turn, h.message_index));
            hits.truncate(limit - total);
            total += hits.len();
            let group = match job.owner {
                Owner::Thread { row, .. } => {
                    let stored = self.store().turns(&row.id).await?;
                    let hits = hits
                        .into_iter()
                        .map(|(index, native_ref, mut hit)| {
                            hit.turn_id = stored
                                .get(index)
                                .filter(|t| t.native_turn_ref == native_ref)
                                .map(|t| t.id.clone());
                            hit
                        })
                        .collect();
                    let title = self.view_of(&row).map(|v| v.title).unwrap_or(row.title);
                    SearchGroup {
                        thread_id: Some(row.id),
                        session: None,
                        title,
                        harness: job.kind,
                        cwd: Some(row.cwd),
                        hits,
                        host: None,
                    }
                }
                Owner::Session { session_id } => SearchGroup {
                    title: file
                        .first_prompt
                        .as_deref()
                        .and_then(crate::base::thread_views::prompt_title)
                        .unwrap_or_else(|| format!("{} session", job.kind)),
                    thread_id: None,
                    session: Some(SearchSession {
                        harness: job.kind,
                        session_id,
                        path: job.path.display().to_string(),
                    }),
                    harness: job.kind,
                    cwd: file.cwd,
                    hits: hits.into_iter().map(|(_, _, h)| h).collect(),
                    host: None,
                },
            };
            groups.push(group);
        }
        Ok(SearchResults {
            groups,
            hits: total,
            truncated,
            files: stats.files.load(Ordering::Relaxed),
            bytes: stats.bytes.load(Ordering::Relaxed),
            decoded: stats.candidates.load(Ordering::Relaxed),
            elapsed_ms: started.elapsed().as_secs_f64() * 1e3,
        })
    }
}

/// The query checked (before anything is read) and compiled for both passes.
fn compile(query: &SearchQuery) -> HostResult<(Matcher, Prefilter)> {
    if query.text.len() > MAX_QUERY_BYTES {
        return Err(HostError::InvalidInput(format!(
            "the search query is {} KB; at most {} KB can be searched",
            query.text.len().div_ceil(1024),
            MAX_QUERY_BYTES / 1024
        )));
    }
    if query.text.trim().is_empty() {
        return Err(HostError::InvalidInput(
            "the search query is empty; type a word to search for".into(),
        ));
    }
    Ok(if query.regex {
        (Matcher::regex(&query.text)?, Prefilter::regex(&query.text))
    } else {
        (
            Matcher::literal(&query.text)?,
            Prefilter::literal(&query.text),
        )
    })
}

/// The threads with a transcript of their own, in the harness and folder asked for.
fn thread_jobs(
    rows: &[ThreadRow],
    numbers: &HashMap<String, i64>,
    harness: Option<HarnessKind>,
    folder: Option<&Path>,
) -> Vec<Job> {
    rows.iter()
        .filter(|r| r.state != ThreadState::Missing && r.pending_fork.is_none())
        .filter(|r| folder.is_none_or(|f| Path::new(&r.cwd).starts_with(f)))
        .filter_map(|row| {
            let kind: HarnessKind = row.harness.parse().ok()?;
            if harness.is_some_and(|h| h != kind) {
                return None;
            }
            let path = PathBuf::from(row.native_path.as_deref()?);
            // A fork inherits its source's turns up to its cut (numbered as in the source).
            let own_from = match (&row.fork, numbers.get(&row.id)) {
                (Some(fork), Some(&n)) => match fork.boundary {
                    Boundary::Before => (n - 1).max(0) as usize,
                    Boundary::After | Boundary::Latest => n.max(0) as usize,
                },
                _ => 0,
            };
            Some(Job {
                path,
                kind,
                owner: Owner::Thread {
                    row: Box::new(row.clone()),
                    own_from,
                },
            })
        })
        .collect()
}

/// Adds the session files under the harnesses' roots that no thread holds.
fn add_sessions(jobs: &mut Vec<Job>, rows: &[ThreadRow], roots: &[(HarnessKind, PathBuf)]) {
    let held_paths: HashSet<PathBuf> = rows
        .iter()
        .filter_map(|r| r.native_path.as_deref().map(PathBuf::from))
        .collect();
    let held_ids: HashSet<(&str, &str)> = rows
        .iter()
        .filter_map(|r| Some((r.harness.as_str(), r.native_session_id.as_deref()?)))
        .collect();
    for (kind, root) in roots {
        for path in kind.harness().session_files(root) {
            let session_id = kind.harness().session_id_of(&path);
            let held = held_paths.contains(&path)
                || session_id
                    .as_deref()
                    .is_some_and(|id| held_ids.contains(&(kind.as_str(), id)));
            if !held {
                jobs.push(Job {
                    path,
                    kind: *kind,
                    owner: Owner::Session { session_id },
                });
            }
        }
    }
}

/// Most recently changed transcripts first: their hits come first, and first when a limit
/// stops the search early.
fn newest_first(jobs: &mut [Job]) {
    let mut times: HashMap<PathBuf, SystemTime> = HashMap::new();
    for job in jobs.iter() {
        let modified = std::fs::metadata(&job.path)
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        times.insert(job.path.clone(), modified);
    }
    jobs.sort_by_key(|j| std::cmp::Reverse(times.get(&j.path).copied()));
}

/// One search's exact pass, shared by the scan's workers.
struct Run<'a> {
    host: &'a Host,
    jobs: &'a [Job],
    matcher: &'a Matcher,
    folder: Option<&'a Path>,
    limit: usize,
    stop: AtomicBool,
    count: AtomicUsize,
    found: Mutex<Vec<FileHits>>,
}

impl Run<'_> {
    /// Decodes a candidate file and matches its messages. Blocking.
    fn file(&self, index: usize) {
        let job = &self.jobs[index];
        let own_from = match &job.owner {
            Owner::Thread { own_from, .. } => *own_from,
            Owner::Session { .. } => 0,
        };
        let mut cwd = None;
        if let Owner::Session { .. } = job.owner {
            cwd = job.kind.harness().recorded_cwd(&job.path);
            if let Some(folder) = self.folder {
                if !cwd
                    .as_deref()
                    .is_some_and(|c| Path::new(c).starts_with(folder))
                {
                    return;
                }
            }
        }
        let turns = match self.host.inner.texts.turns(job.kind, &job.path) {
            Ok(turns) => turns,
            Err(err) => {
                tracing::debug!(error = %err, "a transcript could not be read for search");
                return;
            }
        };
        let hits = hits_in(&turns, own_from, self.matcher);
        if hits.is_empty() {
            return;
        }
        let first_prompt = turns.first().and_then(|t| {
            t.messages
                .iter()
                .find(|m| m.role == Role::User && !m.text.trim().is_empty())
                .map(|m| m.text.clone())
        });
        let before = self.count.fetch_add(hits.len(), Ordering::Relaxed);
        if before + hits.len() >= self.limit {
            self.stop.store(true, Ordering::Relaxed);
        }
        self.found
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(FileHits {
                job: index,
                hits,
                first_prompt,
                cwd,
            });
    }
}

/// The messages of turns `own_from..` that hold a hit, one hit per message: in its text,
/// then its tool input, then its tool output. Messages are numbered as the thread view lists
/// them (`MessageView::from_message` leaves out harness bookkeeping); nothing is copied but
/// a hit's snippet.
fn hits_in(turns: &[Turn], own_from: usize, matcher: &Matcher) -> Vec<(usize, String, SearchHit)> {
    let mut out = Vec::new();
    for (index, turn) in turns.iter().enumerate().skip(own_from) {
        let shown = turn.messages.iter().filter(|m| shown(m));
        for (message_index, message) in shown.enumerate() {
            let Some((part, text, (start, end))) = hit_in(message, matcher) else {
                continue;
            };
            let (snippet, hit_start, hit_end) = snippet(&text, start, end);
            out.push((
                index,
                turn.native_turn_ref.clone(),
                SearchHit {
                    turn_id: None,
                    turn_number: index as i64 + 1,
                    message_index,
                    part,
                    snippet,
                    hit_start,
                    hit_end,
                },
            ));
        }
    }
    out
}

/// Whether the thread view shows the message (as `MessageView::from_message` decides).
fn shown(message: &Message) -> bool {
    message.role != Role::Other || message.error.is_some()
}

fn hit_in<'a>(
    message: &'a Message,
    matcher: &Matcher,
) -> Option<(HitPart, Cow<'a, str>, (usize, usize))> {
    let mut parts: Vec<(HitPart, Cow<'a, str>)> = Vec::new();
    match &message.tool {
        Some(tool) => {
            parts.push((HitPart::ToolInput, Cow::Owned(input_text(&tool.input))));
            if let Some(output) = &tool.output {
                parts.push((HitPart::ToolOutput, Cow::Borrowed(output)));
            }
        }
        None => {
            let part = match message.role {
                Role::User => HitPart::UserText,
                _ => HitPart::Reply,
            };
            parts.push((part, Cow::Borrowed(&message.text)));
        }
    }
    if let Some(error) = &message.error {
        parts.push((HitPart::Reply, Cow::Borrowed(error)));
    }
    parts
        .into_iter()
        .find_map(|(part, text)| matcher.find(&text).map(|range| (part, text, range)))
}

/// A tool's input as searchable text: its string values (a command, a path, a patch), one a
/// line; other values as JSON.
fn input_text(input: &serde_json::Value) -> String {
    fn walk(value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::Null => {}
            serde_json::Value::String(s) => out.push(s.clone()),
            serde_json::Value::Array(items) => items.iter().for_each(|v| walk(v, out)),
            serde_json::Value::Object(map) => map.values().for_each(|v| walk(v, out)),
            other => out.push(other.to_string()),
        }
    }
    let mut out = Vec::new();
    walk(input, &mut out);
    out.join("\n")
}

#[cfg(test)]
mod search_tests;
