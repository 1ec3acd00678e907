//! The search box's command (docs/architecture.md "Search"): checks the query, runs
//! `Host::search` (its scan runs on blocking threads, so the UI never waits on it) — and the
//! same search on every remote host connected now, their threads' hits after this machine's —
//! and stops the window's previous search when a newer query arrives while the user types.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use std::time::Duration;

use forkhost_core::{Call, Returned, SearchQuery, SearchResults, MAX_QUERY_BYTES};
use tauri::{State, WebviewWindow};

use crate::error::{CmdResult, CommandError, ErrorCode};
use crate::state::AppState;

/// The most hits the search box asks for (the CLI's default).
const BOX_LIMIT: usize = 200;
/// How long a remote host's search may take before the box answers without it.
const REMOTE_LIMIT: Duration = Duration::from_secs(10);

/// The query as the box may send it: not over the size the Host searches (refused here, before
/// it is copied further), at most [`BOX_LIMIT`] hits.
fn checked(mut query: SearchQuery) -> CmdResult<SearchQuery> {
    if query.text.len() > MAX_QUERY_BYTES {
        return Err(CommandError::new(
            ErrorCode::InvalidInput,
            format!(
                "the search query is too long; at most {} KB can be searched",
                MAX_QUERY_BYTES / 1024
            ),
        ));
    }
    query.limit = Some(query.limit.unwrap_or(BOX_LIMIT).clamp(1, BOX_LIMIT));
    Ok(query)
}

/// Searches every thread and the sessions not adopted yet. A newer search from the same window
/// stops this one (it then answers what it had; the box shows only the newest answer).
#[tauri::command(rename_all = "snake_case")]
pub async fn search(
    window: WebviewWindow,
    state: State<'_, AppState>,
    query: SearchQuery,
) -> CmdResult<SearchResults> {
    let query = checked(query)?;
    let cancel = Arc::new(AtomicBool::new(false));
    let label = window.label().to_owned();
    let older = state.searches().insert(label.clone(), cancel.clone());
    if let Some(older) = older {
        older.store(true, Ordering::Relaxed);
    }
    // The hosts' searches run while this machine's does (one host after another: a user has
    // a few).
    let remote = async {
        let mut found = Vec::new();
        for host in state.remote.connected() {
            let call = Call::Search {
                query: query.clone(),
            };
            match tokio::time::timeout(REMOTE_LIMIT, state.remote.call(&host, call)).await {
                Ok(Ok(Returned::Search { results })) => found.push(results.on_host(&host)),
                Ok(Ok(_)) | Ok(Err(_)) | Err(_) => {
                    // Its hits are missing, not wrong: the box shows the others'.
                    tracing::warn!(host = %host, "a remote host's search did not answer");
                }
            }
        }
        found
    };
    let (result, there) = tokio::join!(
        state.host.search_until(query.clone(), cancel.clone()),
        remote
    );
    let mut running = state.searches();
    if running.get(&label).is_some_and(|c| Arc::ptr_eq(c, &cancel)) {
        running.remove(&label);
    }
    let mut results = result?;
    for found in there {
        results.merge(found);
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_query_is_refused_and_the_limit_kept_small() {
        let long = SearchQuery {
            text: "x".repeat(MAX_QUERY_BYTES + 1),
            ..SearchQuery::default()
        };
        let err = checked(long).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidInput.into());
        let asked = SearchQuery {
            text: "x".into(),
            limit: Some(1_000_000),
            ..SearchQuery::default()
        };
        assert_eq!(checked(asked).unwrap().limit, Some(BOX_LIMIT));
    }
}
