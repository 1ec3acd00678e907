//! What a fork is called (docs/architecture.md "Names of forks"): by what makes it different
//! from its siblings. Until its first own prompt it carries the label it was made with — its cut
//! ("after turn 2", "before turn 2", "in Codex after turn 2"), numbered among its siblings with
//! the same label ("after turn 2 · 2"). Once it has a turn of its own it is shown under that
//! turn's prompt, shortened. The store keeps no message text, so that name is read from the
//! native session when a thread is listed or shown (`base/thread_views.rs`, once per fork and naming
//! turn in a process) and never written back; a user's rename (`title_custom`) always wins.

use forkhost_store::{Boundary, ThreadRow};

/// The label of a fork cut at `boundary` of turn `number` (1-based); `into`: the product name
/// of the harness it continues in, when that is another one than its source's.
pub(crate) fn fork_label(boundary: Boundary, number: i64, into: Option<&str>) -> String {
    let cut = match boundary {
        Boundary::Before => format!("before turn {number}"),
        Boundary::After | Boundary::Latest => format!("after turn {number}"),
    };
    match into {
        Some(product) => format!("in {product} {cut}"),
        None => cut,
    }
}

/// `label`, numbered after the siblings already called so (`"after turn 2"`,
/// `"after turn 2 · 2"`, …); a renamed sibling no longer counts.
pub(crate) fn numbered(label: &str, siblings: &[ThreadRow]) -> String {
    let highest = siblings
        .iter()
        .filter(|s| !s.title_custom)
        .filter_map(|s| {
            if s.title == label {
                Some(1)
            } else {
                s.title
                    .strip_prefix(label)
                    .and_then(|rest| rest.strip_prefix(" · "))
                    .and_then(|n| n.parse::<u32>().ok())
            }
        })
        .max();
    match highest {
        None => label.to_owned(),
        Some(n) => format!("{label} · {}", n + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sibling(title: &str, custom: bool) -> ThreadRow {
        ThreadRow {
            title: title.into(),
            title_custom: custom,
            ..crate::base::thread::tests::row()
        }
    }

    #[test]
    fn labels_name_the_cut_and_the_harness_continued_in() {
        assert_eq!(fork_label(Boundary::After, 2, None), "after turn 2");
        assert_eq!(fork_label(Boundary::Latest, 3, None), "after turn 3");
        assert_eq!(fork_label(Boundary::Before, 2, None), "before turn 2");
        assert_eq!(
            fork_label(Boundary::After, 2, Some("Codex")),
            "in Codex after turn 2"
        );
    }

    #[test]
    fn equal_labels_are_numbered_after_the_highest() {
        assert_eq!(numbered("after turn 2", &[]), "after turn 2");
        let siblings = [
            sibling("after turn 2", false),
            sibling("after turn 2 · 3", false),
            sibling("before turn 2", false),
        ];
        assert_eq!(numbered("after turn 2", &siblings), "after turn 2 · 4");
        assert_eq!(numbered("before turn 2", &siblings), "before turn 2 · 2");
        assert_eq!(
            numbered("after turn 2", &[sibling("after turn 2", true)]),
            "after turn 2"
        );
        assert_eq!(
            numbered("after turn 2", &[sibling("after turn 20", false)]),
            "after turn 2"
        );
    }
}
