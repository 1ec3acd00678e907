//! `forkhost search` (docs/architecture.md "Search"): hits grouped by thread, each with the
//! words around it and the hit in bold on a terminal (plain text otherwise, and with
//! `NO_COLOR`).

use crate::approve::visible;
use std::io::IsTerminal;

use forkhost_core::{HarnessKind, HitPart, Host, HostError, SearchQuery, SearchResults};

use crate::output::Printed;

/// What `forkhost search` was asked.
#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// The text to find (literal, in any case), or a regular expression with
    /// --regex.
    query: String,
    /// Only this harness's threads and sessions.
    #[arg(long)]
    harness: Option<HarnessKind>,
    /// Only threads and sessions whose folder is DIR or inside it.
    #[arg(long, value_name = "DIR")]
    folder: Option<String>,
    /// The query is a regular expression (case-insensitive).
    #[arg(long)]
    regex: bool,
    /// At most N hits (default 200).
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
}

pub async fn search(host: &Host, args: SearchArgs) -> Result<Printed, HostError> {
    let results = host
        .search(SearchQuery {
            text: args.query,
            regex: args.regex,
            harness: args.harness,
            folder: args.folder,
            limit: args.limit,
        })
        .await?;
    let bold = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let text = text(&results, bold);
    let json = serde_json::to_value(&results).map_err(|e| HostError::Internal(e.to_string()))?;
    Ok(Printed::new(json, text))
}

fn text(results: &SearchResults, bold: bool) -> String {
    let mut out = Vec::new();
    for group in &results.groups {
        let whose = match (&group.thread_id, &group.session) {
            (Some(id), _) => format!("thread {id}"),
            (None, Some(s)) => format!("not adopted: {}", s.path),
            (None, None) => String::new(),
        };
        out.push(format!(
            "{} ({} · {})",
            visible(&group.title),
            group.harness,
            visible(&whose)
        ));
        for hit in &group.hits {
            let part = match hit.part {
                HitPart::UserText => "prompt",
                HitPart::Reply => "reply",
                HitPart::ToolInput => "tool input",
                HitPart::ToolOutput => "tool output",
            };
            let snippet = highlighted(&hit.snippet, hit.hit_start, hit.hit_end, bold);
            out.push(format!("  turn {} · {part}: {snippet}", hit.turn_number));
        }
    }
    let threads = results.groups.len();
    let mut summary = format!(
        "{} {} in {threads} {} ({} files, {:.1} MB read, {:.0} ms)",
        results.hits,
        if results.hits == 1 { "hit" } else { "hits" },
        if threads == 1 { "thread" } else { "threads" },
        results.files,
        results.bytes as f64 / 1e6,
        results.elapsed_ms
    );
    if results.truncated {
        summary.push_str("; stopped at the limit, there may be more (--limit N)");
    }
    if !out.is_empty() {
        out.push(String::new());
    }
    out.push(summary);
    out.join("\n")
}

/// The snippet with its hit in bold (ANSI) when `bold`; a range off a character boundary
/// prints the snippet as it is. Model text: its control characters are shown, never sent to
/// the terminal raw (`approve::visible`), so a reply cannot rewrite the screen.
fn highlighted(snippet: &str, start: usize, end: usize, bold: bool) -> String {
    match (
        bold,
        snippet.get(..start),
        snippet.get(start..end),
        snippet.get(end..),
    ) {
        (true, Some(before), Some(hit), Some(after)) => {
            format!(
                "{}\x1b[1m{}\x1b[0m{}",
                visible(before),
                visible(hit),
                visible(after)
            )
        }
        _ => visible(snippet),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hit_is_bold_only_on_a_terminal() {
        assert_eq!(highlighted("a hit b", 2, 5, true), "a \x1b[1mhit\x1b[0m b");
        assert_eq!(highlighted("a hit b", 2, 5, false), "a hit b");
        assert_eq!(
            highlighted("\x1b[2Ja hit", 6, 9, true),
            "\\x1b[2Ja \x1b[1mhit\x1b[0m"
        );
        assert_eq!(highlighted("x\x1b]0;t\x07", 0, 1, false), "x\\x1b]0;t\\x07");
        assert_eq!(highlighted("é", 1, 2, true), "é");
    }
}
