//! Reading JSONL the way harnesses write it: one JSON value per `\n`-terminated line, appended.
//!
//! Only complete lines are consumed. A last line without its `\n` is one the harness is still
//! writing: it is left for the next read, and the reader reports the offset up to the last
//! complete line. Large ranges are cut into chunks that are read and indexed in parallel
//! (rayon); each chunk owns the lines that *start* in it, so a line crossing a chunk border is
//! read whole by one task. A line longer than [`MAX_LINE`] is skipped, never held in memory
//! (a crafted multi-GB line must not take the app's memory; review L9): it is read past in
//! blocks, dropped with a warning, and the lines after it are indexed as usual.

pub(crate) mod follow;

use std::fs::File;
use std::io;
use std::ops::Range;

use memchr::memchr;
use rayon::prelude::*;

/// A line's place in its file, without its `\n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub start: u64,
    pub end: u64,
}

/// Bytes per parallel task: big enough that a task's overhead vanishes, small enough that two
/// cores stay balanced and a task's buffer stays reusable.
const CHUNK: u64 = 4 << 20;
/// Bytes read at a time within a chunk: copied from the page cache and scanned while in cache.
const BLOCK: usize = 256 << 10;
/// The longest line indexed. Harness records carry whole tool outputs and pasted images
/// (single-digit MB seen), so this is far above any real record and far below a memory risk.
pub(crate) const MAX_LINE: usize = 64 << 20;

pub(crate) struct Scanned<T> {
    pub items: Vec<T>,
    /// The end of the last complete line (just after its `\n`); `range.start` if none.
    pub end: u64,
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

/// Append `file[offset..offset + len]` to `buf`, stopping early only at end of file.
pub(crate) fn append_at(file: &File, buf: &mut Vec<u8>, offset: u64, len: usize) -> io::Result<()> {
    let old = buf.len();
    buf.resize(old + len, 0);
    let mut filled = 0;
    while filled < len {
        match read_at(file, &mut buf[old + filled..], offset + filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                buf.truncate(old);
                return Err(e);
            }
        }
    }
    buf.truncate(old + filled);
    Ok(())
}

/// A reusable read buffer: bytes `0..len` are valid. Memory past `len` is kept (not zeroed
/// again) between reads, so re-filling it costs only the copy from the page cache.
#[derive(Default)]
struct Buf {
    data: Vec<u8>,
    len: usize,
}

impl Buf {
    /// Buffers grown past this by a long line are given back after use: every thread that
    /// reads keeps one, and a block and its unfinished line fit in this.
    const KEEP: usize = 4 * BLOCK;

    fn bytes(&self) -> &[u8] {
        &self.data[..self.len]
    }

    /// Append up to `n` bytes read at `offset`; fewer only at end of file.
    fn read_more(&mut self, file: &File, offset: u64, n: usize) -> io::Result<()> {
        let want = self.len + n;
        if self.data.len() < want {
            self.data.resize(want.max(self.data.len() * 2), 0);
        }
        while self.len < want {
            let at = offset + (self.len + n - want) as u64;
            match read_at(file, &mut self.data[self.len..want], at) {
                Ok(0) => break,
                Ok(got) => self.len += got,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    fn reset(&mut self) {
        self.len = 0;
        if self.data.len() > Self::KEEP {
            self.data = Vec::new();
        }
    }
}

thread_local! {
    static BUF: std::cell::RefCell<Buf> = std::cell::RefCell::default();
}

/// Index every complete line that starts in `range` (which must start at a line start), calling
/// `index(line, span)` on each; lines `index` declines are dropped. Lines are never read past
/// `range.end`, so a snapshot of the file's length gives a consistent read while the harness
/// keeps appending.
pub(crate) fn scan<T, F>(file: &File, range: Range<u64>, index: F) -> io::Result<Scanned<T>>
where
    T: Send,
    F: Fn(&[u8], Span) -> Option<T> + Sync,
{
    scan_bounded(file, range, MAX_LINE, index)
}

/// [`scan`] with the longest line given (tests use a small one).
fn scan_bounded<T, F>(
    file: &File,
    range: Range<u64>,
    max_line: usize,
    index: F,
) -> io::Result<Scanned<T>>
where
    T: Send,
    F: Fn(&[u8], Span) -> Option<T> + Sync,
{
    let len = range.end.saturating_sub(range.start);
    let chunks = len.div_ceil(CHUNK).max(1);
    let part = |c: u64| {
        let start = range.start + c * CHUNK;
        let end = (start + CHUNK).min(range.end);
        BUF.with(|buf| {
            let mut buf = buf.borrow_mut();
            let out = scan_chunk(file, &mut buf, start, end, range.clone(), max_line, &index);
            buf.reset();
            out
        })
    };
    let parts: Vec<io::Result<(Vec<T>, Option<u64>)>> = if chunks == 1 {
        vec![part(0)]
    } else {
        (0..chunks).into_par_iter().map(part).collect()
    };
    let mut items = Vec::new();
    let mut done = range.start;
    for part in parts {
        let (mut part_items, part_end) = part?;
        items.append(&mut part_items);
        if let Some(e) = part_end {
            done = e;
        }
    }
    Ok(Scanned { items, end: done })
}

/// The lines starting in `start..end`, reading on past `end` (never past `all.end`) to finish
/// the last one. The file is read in blocks small enough to stay in cache between the copy
/// and the scan; a line longer than a block grows the buffer.
fn scan_chunk<T, F>(
    file: &File,
    buf: &mut Buf,
    start: u64,
    end: u64,
    all: Range<u64>,
    max_line: usize,
    index: &F,
) -> io::Result<(Vec<T>, Option<u64>)>
where
    F: Fn(&[u8], Span) -> Option<T>,
{
    // Read from one byte early: a line starts in the chunk only after a `\n` at or past it.
    let mut base = if start > all.start { start - 1 } else { start };
    let mut seek_line = start > all.start;
    let mut items = Vec::new();
    let mut last_end = None;
    let mut pos = 0usize;
    // Bytes before this hold no `\n` past `pos`: a long line is searched once, not per read.
    let mut searched = 0usize;
    let mut step = BLOCK;
    buf.len = 0;
    loop {
        let from = pos.max(searched);
        let Some(off) = memchr(b'\n', &buf.bytes()[from..]).map(|o| o + from - pos) else {
            searched = buf.len;
            let read_to = base + buf.len as u64;
            if read_to >= all.end || (seek_line && read_to >= end) {
                break;
            }
            if !seek_line && base + pos as u64 >= end {
                break;
            }
            if seek_line {
                // Only the `\n` that ends the line is wanted, not its bytes.
                pos = buf.len;
            } else if buf.len - pos > max_line {
                // Too long to index: read past it, keeping nothing.
                let line_start = base + pos as u64;
                match skip_line(file, read_to, all.end)? {
                    Some(next) => {
                        tracing::warn!(
                            offset = line_start,
                            bytes = next - line_start,
                            "a transcript line longer than the limit was skipped"
                        );
                        buf.len = 0;
                        base = next;
                        pos = 0;
                        searched = 0;
                        last_end = Some(next);
                        continue;
                    }
                    // Not finished yet: left for a later read, as any unfinished line.
                    None => break,
                }
            }
            // Keep the unfinished line, drop what was scanned.
            if pos > 0 {
                buf.data.copy_within(pos..buf.len, 0);
                buf.len -= pos;
                searched -= pos;
                base += pos as u64;
                pos = 0;
            }
            let want = if read_to < end {
                BLOCK.min((end - read_to) as usize)
            } else {
                // Past the chunk: only the last line is left to finish.
                step = (step * 2).min(CHUNK as usize);
                step
            };
            let old = buf.len;
            buf.read_more(file, read_to, want.min((all.end - read_to) as usize))?;
            if buf.len == old {
                break;
            }
            continue;
        };
        let nl = pos + off;
        if seek_line {
            seek_line = false;
            pos = nl + 1;
            continue;
        }
        let line_start = base + pos as u64;
        if line_start >= end {
            break;
        }
        let span = Span {
            start: line_start,
            end: base + nl as u64,
        };
        if let Some(item) = index(&buf.bytes()[pos..nl], span) {
            items.push(item);
        }
        pos = nl + 1;
        last_end = Some(base + pos as u64);
    }
    Ok((items, last_end))
}

/// The offset just past the next `\n` at or after `from` (before `until`), read in blocks
/// that are dropped at once; `None` when there is none yet.
fn skip_line(file: &File, mut from: u64, until: u64) -> io::Result<Option<u64>> {
    let mut block = Vec::with_capacity(BLOCK);
    while from < until {
        block.clear();
        append_at(file, &mut block, from, BLOCK.min((until - from) as usize))?;
        if block.is_empty() {
            break;
        }
        if let Some(off) = memchr(b'\n', &block) {
            return Ok(Some(from + off as u64 + 1));
        }
        from += block.len() as u64;
    }
    Ok(None)
}

/// Read many lines back by their spans, merging neighbours into one read: the records of a
/// turn are usually adjacent in the file. Calls `f(i, bytes)` for `spans[i]`, in order.
pub(crate) fn read_spans(
    file: &File,
    spans: &[Span],
    f: &mut dyn FnMut(usize, &[u8]),
) -> io::Result<()> {
    // Merge while the gap stays small and the block bounded.
    const GAP: u64 = 64 << 10;
    const BLOCK: u64 = 16 << 20;
    let mut buf = Vec::new();
    let mut i = 0;
    while i < spans.len() {
        let block_start = spans[i].start;
        let mut block_end = spans[i].end;
        let mut j = i + 1;
        while j < spans.len()
            && spans[j].start >= block_end
            && spans[j].start - block_end <= GAP
            && spans[j].end - block_start <= BLOCK
        {
            block_end = spans[j].end;
            j += 1;
        }
        buf.clear();
        append_at(
            file,
            &mut buf,
            block_start,
            (block_end - block_start) as usize,
        )?;
        for (k, span) in spans.iter().enumerate().take(j).skip(i) {
            let a = (span.start - block_start) as usize;
            let b = ((span.end - block_start) as usize).min(buf.len());
            f(k, buf.get(a..b).unwrap_or_default());
        }
        i = j;
    }
    Ok(())
}

/// Parse a line as JSON; a line that is not valid UTF-8 is read with replacement characters
/// rather than dropped.
pub(crate) fn parse_line(line: &[u8]) -> Option<serde_json::Value> {
    match serde_json::from_slice(line) {
        Ok(v) => Some(v),
        Err(_) => match std::str::from_utf8(line) {
            Ok(_) => None,
            Err(_) => serde_json::from_str(&String::from_utf8_lossy(line)).ok(),
        },
    }
}

/// Whether the byte just before `offset` is still the `\n` we stopped after: a cheap check
/// that the file still continues what was read (it was not truncated or rewritten shorter).
pub(crate) fn continues(file: &File, offset: u64) -> io::Result<bool> {
    if offset == 0 {
        return Ok(true);
    }
    let mut b = Vec::with_capacity(1);
    append_at(file, &mut b, offset - 1, 1)?;
    Ok(b.first() == Some(&b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Call `f` on each complete line of `buf` (which starts at file offset `base`); returns the
    /// length of `buf` covered by complete lines.
    fn split_lines(buf: &[u8], base: u64, f: &mut dyn FnMut(&[u8], Span)) -> usize {
        let mut pos = 0;
        while let Some(off) = memchr(b'\n', &buf[pos..]) {
            let nl = pos + off;
            f(
                &buf[pos..nl],
                Span {
                    start: base + pos as u64,
                    end: base + nl as u64,
                },
            );
            pos = nl + 1;
        }
        pos
    }

    fn lines_of(content: &[u8]) -> (Vec<Vec<u8>>, u64) {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(content).unwrap();
        let s = scan(&f, 0..content.len() as u64, |line, span| {
            assert_eq!(&content[span.start as usize..span.end as usize], line);
            Some(line.to_vec())
        })
        .unwrap();
        (s.items, s.end)
    }

    #[test]
    fn a_line_over_the_limit_is_skipped_and_the_rest_indexed() {
        // Lines around a 3-block line, with a limit of one block; in one chunk and across two.
        let long = vec![b'x'; 3 * BLOCK + 11];
        let mut content = b"first\n".to_vec();
        content.extend_from_slice(&long);
        content.extend_from_slice(b"\nafter\n");
        content.extend_from_slice(&long);
        content.extend_from_slice(b"\nlast\n");
        content.extend_from_slice(&long);
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(&content).unwrap();
        let s = scan_bounded(&f, 0..content.len() as u64, BLOCK, |line, span| {
            assert_eq!(&content[span.start as usize..span.end as usize], line);
            Some(line.to_vec())
        })
        .unwrap();
        assert_eq!(
            s.items,
            [b"first".to_vec(), b"after".to_vec(), b"last".to_vec()]
        );
        // The unfinished long line at the end is left for a later read.
        assert_eq!(s.end as usize, content.len() - long.len());
        // A line under the limit is still read whole.
        let s = scan_bounded(&f, 0..content.len() as u64, 4 * BLOCK, |line, _| {
            Some(line.len())
        })
        .unwrap();
        assert_eq!(s.items, [5, long.len(), 5, long.len(), 4]);
    }

    #[test]
    fn leaves_a_partial_last_line() {
        let (lines, end) = lines_of(b"a\n\nbc\npartial");
        assert_eq!(lines, [b"a".to_vec(), vec![], b"bc".to_vec()]);
        assert_eq!(end, 6);
    }

    #[test]
    fn parallel_chunks_match_a_plain_split() {
        // Lines of many lengths, some longer than a chunk, crossing every border.
        let mut content = Vec::new();
        let mut n = 0u64;
        while content.len() < (3 * CHUNK as usize) + 12345 {
            n += 1;
            let len = if n.is_multiple_of(97) {
                CHUNK as usize + 7
            } else {
                (n * 7919 % 3000) as usize
            };
            content.extend(std::iter::repeat_n(b'x', len));
            content.push(b'\n');
        }
        content.extend_from_slice(b"tail");
        let (lines, end) = lines_of(&content);
        let mut expected = Vec::new();
        let done = split_lines(&content, 0, &mut |l, _| expected.push(l.to_vec()));
        assert_eq!(lines, expected);
        assert_eq!(end, done as u64);
        assert_eq!(end as usize, content.len() - 4);
    }
}
