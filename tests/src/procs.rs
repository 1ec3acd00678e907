//! The processes of this (Linux) machine, read from `/proc`: what the process-tree tests and
//! the app's memory benchmark look through.

/// The ids of every process now running; empty where there is no `/proc`.
pub fn pids() -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .collect()
}
