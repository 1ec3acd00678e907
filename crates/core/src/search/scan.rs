//! The fast pass of a search (docs/architecture.md "Search"): which transcript files can hold
//! a hit at all. Each file is read whole and searched for the query's literal as the harnesses
//! write it — plain, JSON-escaped (quotes, backslashes, control characters), with `\uXXXX` for
//! non-ASCII, and escaped twice for JSON kept inside a JSON string (Codex's tool outputs) —
//! with one case-insensitive regular expression of those literals (the `regex` crate's
//! literal search: SIMD over the case variants of a prefix, as ripgrep does). Only the files it
//! passes are decoded and matched on their text ([`super::matcher`]), so a JSON-escaped
//! string is found by its plain text and a hit on a key or an id is dropped there.

use std::io::Read;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use regex::bytes::{Regex, RegexBuilder};

/// The literals a candidate file must hold one of; `None`: every file is a candidate (a
/// pattern with no literal every match holds).
pub(crate) struct Prefilter {
    automaton: Option<Regex>,
}

/// A regular expression's required literals are used only while there are at most this many.
const MAX_LITERALS: usize = 64;

impl Prefilter {
    /// For a literal query: the query in every form a harness may have written it.
    pub fn literal(query: &str) -> Prefilter {
        Prefilter::of(&[query.to_owned()])
    }

    /// For a regular expression: the literals one of which every match starts with (extracted
    /// from the pattern as written, case folded like the matcher), or none.
    pub fn regex(pattern: &str) -> Prefilter {
        use regex_syntax::hir::literal::{ExtractKind, Extractor};
        let Ok(hir) = regex_syntax::parse(pattern) else {
            return Prefilter { automaton: None };
        };
        let seq = Extractor::new().kind(ExtractKind::Prefix).extract(&hir);
        let literals: Option<Vec<String>> = seq.literals().and_then(|lits| {
            if lits.is_empty() || lits.len() > MAX_LITERALS {
                return None;
            }
            lits.iter()
                .map(|l| {
                    let text = String::from_utf8(l.as_bytes().to_vec()).ok()?;
                    // A one-byte literal passes nearly every file: not worth a prefilter.
                    (text.len() >= 2).then_some(text)
                })
                .collect()
        });
        match literals {
            Some(literals) => Prefilter::of(&literals),
            None => Prefilter { automaton: None },
        }
    }

    fn of(literals: &[String]) -> Prefilter {
        let mut forms: Vec<String> = Vec::new();
        for literal in literals {
            let escaped = json_escaped(literal, false);
            for form in [
                literal.clone(),
                json_escaped(literal, true),
                json_escaped(&escaped, false),
                escaped,
            ] {
                if !forms.contains(&form) {
                    forms.push(form);
                }
            }
        }
        let alternation: Vec<String> = forms.iter().map(|f| regex::escape(f)).collect();
        let automaton = RegexBuilder::new(&alternation.join("|"))
            .case_insensitive(true)
            .size_limit(1 << 24)
            .build()
            .ok();
        Prefilter { automaton }
    }

    /// Whether `bytes` may hold a hit.
    pub fn passes(&self, bytes: &[u8]) -> bool {
        match &self.automaton {
            Some(re) => re.is_match(bytes),
            None => true,
        }
    }
}

/// `text` as it stands inside a JSON string: `"` and `\` escaped, control characters as
/// `\n`-style or `\u00XX` escapes; with `ascii`, every non-ASCII character as `\uXXXX`
/// (surrogate pairs beyond the BMP), as an ASCII-only writer does.
pub(crate) fn json_escaped(text: &str, ascii: bool) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if ascii && !c.is_ascii() => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// What the fast pass read.
#[derive(Debug, Default)]
pub(crate) struct ScanStats {
    pub files: AtomicUsize,
    pub bytes: AtomicU64,
    pub candidates: AtomicUsize,
}

/// A file is read this much at a time (review L-10: never a whole multi-GB transcript in
/// memory, in each of 8 workers)...
const CHUNK: usize = 8 * 1024 * 1024;
/// ...each chunk read together with this much of the one before, so that a match across the
/// boundary is still seen: more than the longest match the prefilter can make (the query is
/// capped at 64 KiB, and its escaped forms take at most 12 bytes a character).
const OVERLAP: usize = 1024 * 1024;

/// Whether the prefilter passes the file `path`, read in [`CHUNK`]s with [`OVERLAP`]; asks
/// `stop` between chunks (a stopped search leaves a huge file at once). `None` when it could
/// not be read, or was stopped. Counts the bytes read into `stats`.
fn file_passes(
    path: &std::path::Path,
    prefilter: &Prefilter,
    stop: &(dyn Fn() -> bool + Sync),
    stats: &ScanStats,
    window: &mut Vec<u8>,
) -> Option<bool> {
    let mut file = std::fs::File::open(path).ok()?;
    window.clear();
    loop {
        if stop() {
            return None;
        }
        let kept = window.len();
        window.resize(kept + CHUNK, 0);
        let read = loop {
            match file.read(&mut window[kept..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return None,
            }
        };
        window.truncate(kept + read);
        stats.bytes.fetch_add(read as u64, Ordering::Relaxed);
        if read == 0 {
            return Some(false);
        }
        if prefilter.passes(window) {
            return Some(true);
        }
        let tail = window.len().saturating_sub(OVERLAP);
        window.drain(..tail);
    }
}

/// Reads `files` on all cores, newest first as given (each worker takes the next file), and
/// calls `found` with the index of each file the prefilter passes. Stops taking files once
/// `stop` says so, and leaves a file it is reading between two chunks. A file that cannot be
/// read is skipped (it may have been removed meanwhile).
pub(crate) fn candidates(
    files: &[PathBuf],
    prefilter: &Prefilter,
    stop: &(dyn Fn() -> bool + Sync),
    stats: &ScanStats,
    found: &(dyn Fn(usize) + Sync),
) {
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(1, 8)
        .min(files.len().max(1));
    let work = || {
        let mut buffer = Vec::new();
        loop {
            if stop() {
                return;
            }
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(path) = files.get(index) else {
                return;
            };
            let Some(passes) = file_passes(path, prefilter, stop, stats, &mut buffer) else {
                continue;
            };
            stats.files.fetch_add(1, Ordering::Relaxed);
            if passes {
                stats.candidates.fetch_add(1, Ordering::Relaxed);
                found(index);
            }
        }
    };
    if workers <= 1 {
        work();
        return;
    }
    std::thread::scope(|scope| {
        for _ in 1..workers {
            scope.spawn(work);
        }
        work();
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_json_writers_do() {
        assert_eq!(json_escaped("say \"hi\"\n\\", false), r#"say \"hi\"\n\\"#);
        assert_eq!(json_escaped("café", false), "café");
        assert_eq!(json_escaped("café", true), r"caf\u00e9");
        assert_eq!(json_escaped("🦀", true), r"\ud83e\udd80");
        assert_eq!(json_escaped("\u{1}", false), r"\u0001");
        let line = serde_json::to_string("a \"quoted\"\nline — ok").unwrap();
        assert!(line.contains(&json_escaped("\"quoted\"\nline —", false)));
    }

    #[test]
    fn a_literal_passes_its_escaped_forms_in_any_case() {
        let filter = Prefilter::literal("Say \"hi\"\nthen é");
        let plain = serde_json::to_string("x say \"HI\"\nthen é y").unwrap();
        assert!(filter.passes(plain.as_bytes()));
        let ascii = r#"{"t":"say \"hi\"\nthen \u00E9"}"#;
        assert!(filter.passes(ascii.as_bytes()));
        let twice =
            serde_json::to_string(&serde_json::to_string("say \"hi\"\nthen é").unwrap()).unwrap();
        assert!(filter.passes(twice.as_bytes()));
        assert!(!filter.passes(b"say hi then e"));
        assert!(Prefilter::literal("ÉTÉ").passes("un été".as_bytes()));
    }

    #[test]
    fn a_regex_prefilters_on_its_literals_or_passes_everything() {
        let filter = Prefilter::regex("retry (policy|budget)");
        assert!(filter.passes(b"the RETRY policy"));
        assert!(!filter.passes(b"nothing here"));
        assert!(Prefilter::regex(r"\w+").passes(b"anything"));
    }

    /// Review L-10: a huge file is read in chunks, a match across a chunk's edge is seen, and
    /// a stop is heard between chunks.
    #[test]
    fn a_huge_file_is_read_in_chunks_and_left_when_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let across = dir.path().join("across.jsonl");
        let mut body = vec![b'x'; CHUNK - 3];
        body.extend_from_slice(b"needle");
        body.extend(std::iter::repeat_n(b'y', CHUNK));
        std::fs::write(&across, &body).unwrap();
        let stats = ScanStats::default();
        let mut window = Vec::new();
        let never = || false;
        assert_eq!(
            file_passes(
                &across,
                &Prefilter::literal("needle"),
                &never,
                &stats,
                &mut window
            ),
            Some(true)
        );
        assert!(window.capacity() <= 2 * (CHUNK + OVERLAP), "bounded memory");
        assert_eq!(
            file_passes(
                &across,
                &Prefilter::literal("absent"),
                &never,
                &stats,
                &mut window
            ),
            Some(false)
        );
        // 256 MiB, stopped after its first chunk: left at once.
        let huge = dir.path().join("huge.jsonl");
        let file = std::fs::File::create(&huge).unwrap();
        file.set_len(256 * 1024 * 1024).unwrap();
        let asked = AtomicUsize::new(0);
        let stop = || asked.fetch_add(1, Ordering::Relaxed) >= 1;
        let stats = ScanStats::default();
        assert_eq!(
            file_passes(
                &huge,
                &Prefilter::literal("absent"),
                &stop,
                &stats,
                &mut window
            ),
            None
        );
        // Left after its first chunk: what it read says so (a time bound would be a speed
        // assertion, and failed on a loaded machine).
        assert_eq!(stats.bytes.load(Ordering::Relaxed), CHUNK as u64);
    }

    #[test]
    fn every_file_is_read_and_candidates_reported() {
        let dir = tempfile::tempdir().unwrap();
        let files: Vec<PathBuf> = (0..20)
            .map(|i| {
                let p = dir.path().join(format!("{i}.jsonl"));
                let body = if i % 5 == 0 { "needle" } else { "hay" };
                std::fs::write(&p, body).unwrap();
                p
            })
            .collect();
        let found = std::sync::Mutex::new(Vec::new());
        let stats = ScanStats::default();
        candidates(
            &files,
            &Prefilter::literal("needle"),
            &|| false,
            &stats,
            &|i| found.lock().unwrap().push(i),
        );
        let mut found = found.into_inner().unwrap();
        found.sort();
        assert_eq!(found, [0, 5, 10, 15]);
        assert_eq!(stats.files.load(Ordering::Relaxed), 20);
    }
}
