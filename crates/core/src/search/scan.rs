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

/// Reads `files` on all cores, newest first as given (each worker takes the next file), and
/// calls `found` with the index of each file the prefilter passes. Stops taking files once
/// `stop` says so. A file that cannot be read is skipped (it may have been removed meanwhile).
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
            buffer.clear();
            let read = std::fs::File::open(path).and_then(|mut f| f.read_to_end(&mut buffer));
            if read.is_err() {
                continue;
            }
            stats.files.fetch_add(1, Ordering::Relaxed);
            stats
                .bytes
                .fetch_add(buffer.len() as u64, Ordering::Relaxed);
            if prefilter.passes(&buffer) {
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
