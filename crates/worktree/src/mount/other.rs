//! Elsewhere nothing is known: a watcher decides by working or not.

pub fn unwatchable_kind(_folder: &std::path::Path) -> Option<String> {
    None
}
