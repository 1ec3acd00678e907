//! The exact pass of a search: the query matched on a message's decoded text (what the
//! thread view shows), and the words around a hit cut out as a snippet.

use regex::{Regex, RegexBuilder};

use crate::base::error::{HostError, HostResult};

/// Characters of context kept before and after a hit.
const BEFORE: usize = 60;
const AFTER: usize = 100;

/// Both kinds fold case (Unicode's simple folding), as the prefilter does, so that both passes
/// agree on what is a hit.
pub(crate) struct Matcher(Regex);

impl Matcher {
    /// The query as typed: its metacharacters are text.
    pub fn literal(query: &str) -> HostResult<Matcher> {
        RegexBuilder::new(&regex::escape(query))
            .case_insensitive(true)
            .size_limit(1 << 24)
            .build()
            .map(Matcher)
            .map_err(|e| HostError::InvalidInput(format!("the query cannot be searched: {e}")))
    }

    /// A regular expression, case-insensitive; one that matches empty text (it would hit
    /// every message) is refused, as is one too large to compile.
    pub fn regex(pattern: &str) -> HostResult<Matcher> {
        let regex = RegexBuilder::new(pattern)
            .case_insensitive(true)
            .size_limit(1 << 22)
            .build()
            .map_err(|e| match e {
                regex::Error::CompiledTooBig(_) => HostError::InvalidInput(
                    "the regular expression is too large to search with".into(),
                ),
                other => HostError::InvalidInput(format!(
                    "the regular expression is not valid: {}",
                    first_lines(&other.to_string())
                )),
            })?;
        if regex.is_match("") {
            return Err(HostError::InvalidInput(
                "the regular expression matches empty text, so it would match every message".into(),
            ));
        }
        Ok(Matcher(regex))
    }

    /// The first hit in `text`, as a byte range.
    pub fn find(&self, text: &str) -> Option<(usize, usize)> {
        self.0.find(text).map(|m| (m.start(), m.end()))
    }
}

fn first_lines(message: &str) -> String {
    message.lines().take(6).collect::<Vec<_>>().join(" ")
}

/// The words around the hit `start..end` of `text`: up to [`BEFORE`] characters before and
/// [`AFTER`] after (the hit itself is kept whole up to 200 characters), with line breaks and
/// tabs as spaces and `…` where it was cut; and the hit's byte range in it.
pub(crate) fn snippet(text: &str, start: usize, end: usize) -> (String, usize, usize) {
    let end = end.min(start + char_bytes(&text[start..], 200));
    let from = start - back_bytes(&text[..start], BEFORE);
    let to = end + char_bytes(&text[end..], AFTER);
    let mut out = String::new();
    if from > 0 {
        out.push('…');
    }
    let offset = out.len();
    // One-byte whitespace becomes one-byte spaces: byte offsets inside stay put.
    out.extend(
        text[from..to]
            .chars()
            .map(|c| if c.is_ascii_control() { ' ' } else { c }),
    );
    if to < text.len() {
        out.push('…');
    }
    (out, offset + start - from, offset + end - from)
}

/// Bytes of the first `n` characters of `text`.
fn char_bytes(text: &str, n: usize) -> usize {
    text.char_indices()
        .nth(n)
        .map(|(i, _)| i)
        .unwrap_or(text.len())
}

/// Bytes of the last `n` characters of `text`.
fn back_bytes(text: &str, n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    text.char_indices()
        .rev()
        .nth(n - 1)
        .map(|(i, _)| text.len() - i)
        .unwrap_or(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_literal_is_literal_and_folds_case() {
        let m = Matcher::literal("a.b*").unwrap();
        assert_eq!(m.find("xx A.B* yy"), Some((3, 7)));
        assert_eq!(m.find("axbb"), None);
        assert_eq!(Matcher::literal("été").unwrap().find("ÉTÉ"), Some((0, 5)));
        let r = Matcher::regex("a.b+").unwrap();
        assert_eq!(r.find("xx AXBB"), Some((3, 7)));
    }

    #[test]
    fn bad_regexes_are_refused_in_words() {
        for bad in ["(", "a*", "x{99999999}"] {
            let err = Matcher::regex(bad).err().expect(bad);
            assert_eq!(err.code(), "invalid_input", "{bad}");
        }
    }

    #[test]
    fn a_snippet_keeps_the_hit_range_and_flattens_lines() {
        let text = format!(
            "{}\nthe ünïcode HIT\there{}",
            "a".repeat(100),
            "b".repeat(300)
        );
        let start = text.find("HIT").unwrap();
        let (snip, s, e) = snippet(&text, start, start + 3);
        assert_eq!(&snip[s..e], "HIT");
        assert!(snip.starts_with('…') && snip.ends_with('…'), "{snip}");
        assert!(!snip.contains('\n') && !snip.contains('\t'));
        let (short, s, e) = snippet("HIT", 0, 3);
        assert_eq!((short.as_str(), s, e), ("HIT", 0, 3));
    }
}
