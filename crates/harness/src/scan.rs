//! A lazy walk over one JSON value: the index passes pick out the few fields they need and
//! step over everything else without building values or allocating.
//!
//! Big message bodies are almost entirely string contents, so skipping a string is one
//! `memchr` for its closing quote; only the punctuation between strings is looked at byte by
//! byte. Malformed input never panics: the cursor marks itself bad and every step after that
//! yields nothing.

use std::borrow::Cow;

use memchr::memchr;

/// The raw bytes between a string's quotes, escapes undecoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawStr<'a>(pub &'a [u8]);

impl<'a> RawStr<'a> {
    /// True if the string is exactly `s` (written without escapes, as harnesses write ids and
    /// type names).
    pub fn is(&self, s: &str) -> bool {
        self.0 == s.as_bytes()
    }

    pub fn starts_with(&self, prefix: &str) -> bool {
        self.0.starts_with(prefix.as_bytes())
    }

    /// The decoded string, or `None` if it is not valid UTF-8 or not a valid JSON string.
    pub fn decode(&self) -> Option<Cow<'a, str>> {
        if memchr(b'\\', self.0).is_none() {
            return std::str::from_utf8(self.0).ok().map(Cow::Borrowed);
        }
        let mut quoted = Vec::with_capacity(self.0.len() + 2);
        quoted.push(b'"');
        quoted.extend_from_slice(self.0);
        quoted.push(b'"');
        serde_json::from_slice::<String>(&quoted)
            .ok()
            .map(Cow::Owned)
    }

    pub fn boxed(&self) -> Option<Box<str>> {
        self.decode().map(|s| s.into())
    }
}

pub(crate) struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
    bad: bool,
}

impl<'a> Cursor<'a> {
    pub fn new(b: &'a [u8]) -> Self {
        Cursor {
            b,
            i: 0,
            bad: false,
        }
    }

    pub fn at(b: &'a [u8], i: usize) -> Self {
        Cursor { b, i, bad: false }
    }

    pub fn pos(&self) -> usize {
        self.i
    }

    pub fn is_bad(&self) -> bool {
        self.bad
    }

    fn fail<T>(&mut self) -> Option<T> {
        self.bad = true;
        None
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            if c == b' ' || c == b'\t' || c == b'\n' || c == b'\r' {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    #[inline]
    pub fn peek(&mut self) -> Option<u8> {
        if self.bad {
            return None;
        }
        self.ws();
        self.b.get(self.i).copied()
    }

    /// Enter an object; false (and nothing consumed) if the next value is not one.
    pub fn begin_object(&mut self) -> bool {
        if self.peek() == Some(b'{') {
            self.i += 1;
            true
        } else {
            false
        }
    }

    pub fn begin_array(&mut self) -> bool {
        if self.peek() == Some(b'[') {
            self.i += 1;
            true
        } else {
            false
        }
    }

    /// The next key of the object being walked, positioned at its value; `None` at the end of
    /// the object or on malformed input (then [`is_bad`](Self::is_bad)).
    pub fn next_key(&mut self) -> Option<RawStr<'a>> {
        match self.peek() {
            Some(b',') => self.i += 1,
            Some(b'}') => {
                self.i += 1;
                return None;
            }
            Some(_) => {}
            None => return self.fail(),
        }
        if self.peek() != Some(b'"') {
            return self.fail();
        }
        let key = self.string()?;
        if self.peek() != Some(b':') {
            return self.fail();
        }
        self.i += 1;
        Some(key)
    }

    /// Whether another element of the array being walked follows (positioned at it).
    pub fn next_element(&mut self) -> bool {
        match self.peek() {
            Some(b']') => {
                self.i += 1;
                false
            }
            Some(b',') => {
                self.i += 1;
                true
            }
            Some(_) => true,
            None => {
                self.bad = true;
                false
            }
        }
    }

    /// Step out of the object or array being walked, skipping what is left of it.
    pub fn finish_object(&mut self) {
        while self.next_key().is_some() {
            self.skip();
        }
    }

    pub fn finish_array(&mut self) {
        while self.next_element() {
            if !self.skip() {
                return;
            }
        }
    }

    /// A string value, or `None` (nothing consumed) if the value is not a string.
    pub fn string(&mut self) -> Option<RawStr<'a>> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let start = self.i + 1;
        let mut from = start;
        loop {
            let Some(off) = self.b.get(from..).and_then(|rest| memchr(b'"', rest)) else {
                return self.fail();
            };
            let quote = from + off;
            // A quote preceded by an odd run of backslashes is escaped.
            let mut k = quote;
            while k > start && self.b[k - 1] == b'\\' {
                k -= 1;
            }
            if (quote - k).is_multiple_of(2) {
                self.i = quote + 1;
                return Some(RawStr(&self.b[start..quote]));
            }
            from = quote + 1;
        }
    }

    /// A string value; `None` for null or anything else (the value is consumed either way).
    pub fn opt_string(&mut self) -> Option<RawStr<'a>> {
        if self.peek() == Some(b'"') {
            self.string()
        } else {
            self.skip();
            None
        }
    }

    pub fn bool(&mut self) -> Option<bool> {
        match self.peek()? {
            b't' if self.b[self.i..].starts_with(b"true") => {
                self.i += 4;
                Some(true)
            }
            b'f' if self.b[self.i..].starts_with(b"false") => {
                self.i += 5;
                Some(false)
            }
            _ => {
                self.skip();
                None
            }
        }
    }

    pub fn u64(&mut self) -> Option<u64> {
        self.peek()?;
        let start = self.i;
        let mut n: u64 = 0;
        while let Some(&c) = self.b.get(self.i) {
            if !c.is_ascii_digit() {
                break;
            }
            n = n.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
            self.i += 1;
        }
        if self.i == start {
            self.skip();
            return None;
        }
        if matches!(self.b.get(self.i), Some(b'.' | b'e' | b'E')) {
            self.skip();
        }
        Some(n)
    }

    /// Step over one value of any kind and return its bytes, as written (`None`: malformed).
    pub fn raw_value(&mut self) -> Option<&'a [u8]> {
        self.peek()?;
        let from = self.i;
        self.skip().then(|| &self.b[from..self.i])
    }

    /// Step over one value of any kind. False on malformed input.
    pub fn skip(&mut self) -> bool {
        match self.peek() {
            Some(b'"') => self.string().is_some(),
            Some(b'{' | b'[') => self.skip_container(),
            Some(b',' | b'}' | b']' | b':') | None => {
                self.bad = true;
                false
            }
            Some(_) => {
                while let Some(&c) = self.b.get(self.i) {
                    if matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n') {
                        break;
                    }
                    self.i += 1;
                }
                true
            }
        }
    }

    fn skip_container(&mut self) -> bool {
        let mut depth = 0usize;
        while let Some(&c) = self.b.get(self.i) {
            match c {
                b'"' => {
                    if self.string().is_none() {
                        return false;
                    }
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        self.i += 1;
                        return true;
                    }
                }
                _ => {}
            }
            self.i += 1;
        }
        self.bad = true;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_keys_and_skips_values() {
        let line =
            br#" {"a": {"x": [1, "]}\"", {"y": null}]}, "b" : "v\\", "c": true, "d": 42.5e3}"#;
        let mut c = Cursor::new(line);
        assert!(c.begin_object());
        let mut seen = Vec::new();
        while let Some(k) = c.next_key() {
            match k.0 {
                b"b" => seen.push(c.string().unwrap().decode().unwrap().into_owned()),
                b"c" => seen.push(c.bool().unwrap().to_string()),
                b"d" => seen.push(c.u64().unwrap().to_string()),
                _ => assert!(c.skip()),
            }
        }
        assert!(!c.is_bad());
        assert_eq!(seen, ["v\\", "true", "42"]);
    }

    #[test]
    fn garbage_marks_the_cursor_bad() {
        for line in [
            &b"{\"a\""[..],
            b"{\"a\":\"unterminated",
            b"{\"a\":[1,2",
            b"nope",
            b"{]",
        ] {
            let mut c = Cursor::new(line);
            if c.begin_object() {
                while c.next_key().is_some() {
                    c.skip();
                }
            }
            // Only a clean `{...}` walks to its end without going bad.
            assert!(c.is_bad() || !line.starts_with(b"{"), "{line:?}");
        }
    }
}
