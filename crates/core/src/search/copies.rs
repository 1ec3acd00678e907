//! Copies of one message in sessions no thread holds. A fork made outside Forkhost (Claude's
//! `--fork-session`, Pi's `/fork`, Codex's fork) carries its source's turns, with their native
//! turn refs, into its own file; the store's lineage is what tells a thread's inherited turns
//! from its own, and a session not adopted has none. So a hit in such a session is dropped when
//! the same message — the same harness, native turn ref, place in the turn and words — is a hit
//! of a thread's own turn, or of an older session (its source, as far as the files tell).

use std::collections::HashSet;

use forkhost_harness::HarnessKind;

use super::{FileHits, Job, Owner};

type Key = (HarnessKind, String, usize, String);

fn key(kind: HarnessKind, native_ref: &str, hit: &super::SearchHit) -> Option<Key> {
    // A synthetic ref (`@<byte offset>`, old Codex files) is not the same turn elsewhere.
    (!native_ref.starts_with('@')).then(|| {
        (
            kind,
            native_ref.to_owned(),
            hit.message_index,
            hit.snippet.clone(),
        )
    })
}

/// Drops from sessions not adopted the hits that are copies of another file's. `found` is in
/// job order (newest file first); `jobs[i]` is `None` once taken.
pub(super) fn drop_copies(found: &mut [FileHits], jobs: &[Option<Job>]) {
    let owner = |f: &FileHits| jobs[f.job].as_ref().map(|j| (j.kind, &j.owner));
    let mut seen: HashSet<Key> = HashSet::new();
    for file in found.iter() {
        if let Some((kind, Owner::Thread { .. })) = owner(file) {
            seen.extend(file.hits.iter().filter_map(|(_, r, h)| key(kind, r, h)));
        }
    }
    // Oldest session first: a fork's file is newer than its source's.
    for file in found.iter_mut().rev() {
        let Some((kind, Owner::Session { .. })) = owner(file) else {
            continue;
        };
        file.hits
            .retain(|(_, r, h)| key(kind, r, h).is_none_or(|k| seen.insert(k)));
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::super::{HitPart, SearchHit};
    use super::*;

    fn hit(index: usize, snippet: &str) -> SearchHit {
        SearchHit {
            turn_id: None,
            turn_number: 1,
            message_index: index,
            part: HitPart::UserText,
            snippet: snippet.into(),
            hit_start: 0,
            hit_end: 1,
        }
    }

    fn session() -> Option<Job> {
        Some(Job {
            path: PathBuf::from("s.jsonl"),
            kind: HarnessKind::Pi,
            owner: Owner::Session { session_id: None },
        })
    }

    fn file(job: usize, hits: &[(&str, usize, &str)]) -> FileHits {
        FileHits {
            job,
            hits: hits
                .iter()
                .map(|(r, i, s)| (0, (*r).to_owned(), hit(*i, s)))
                .collect(),
            first_prompt: None,
            cwd: None,
        }
    }

    #[test]
    fn a_newer_session_loses_the_copies_of_an_older_ones_hits() {
        let jobs = vec![session(), session()];
        // Job 0 is the newer file (a fork), job 1 its source.
        let mut found = vec![
            file(
                0,
                &[("t1", 0, "zebra"), ("t2", 0, "own zebra"), ("@9", 0, "x")],
            ),
            file(1, &[("t1", 0, "zebra"), ("@9", 0, "x")]),
        ];
        drop_copies(&mut found, &jobs);
        let refs = |f: &FileHits| f.hits.iter().map(|(_, r, _)| r.clone()).collect::<Vec<_>>();
        assert_eq!(
            refs(&found[0]),
            ["t2", "@9"],
            "synthetic refs are never copies"
        );
        assert_eq!(refs(&found[1]), ["t1", "@9"]);
    }
}
