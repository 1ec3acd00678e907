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

/// Whether a process runs whose command line holds every one of `words` (as whole
/// arguments): a command started elsewhere, such as a remote host's `forkhost` that ssh ran.
pub fn running_with_args(words: &[&str]) -> bool {
    pids().into_iter().any(|pid| {
        let Ok(raw) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            return false;
        };
        let args: Vec<&[u8]> = raw.split(|b| *b == 0).collect();
        words.iter().all(|w| args.contains(&w.as_bytes()))
    })
}

/// The CPU time process `pid` has had so far, in milliseconds: the sum of its threads' time on
/// a CPU (`/proc/<pid>/task/*/schedstat`, nanoseconds, unlike `stat`'s 10 ms ticks). Threads
/// that already ended are not counted. `None` once the process is gone.
pub fn cpu_ms(pid: u32) -> Option<f64> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut ns = 0u64;
    for task in tasks.flatten() {
        let stat = std::fs::read_to_string(task.path().join("schedstat")).unwrap_or_default();
        ns += stat
            .split_whitespace()
            .next()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
    }
    Some(ns as f64 / 1e6)
}

/// A process's name (`comm`) and parent, `None` once it is gone.
pub fn name_and_parent(pid: u32) -> Option<(String, u32)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .map(str::to_owned)
    };
    let parent = field("PPid:").and_then(|v| v.parse().ok()).unwrap_or(0);
    Some((field("Name:").unwrap_or_default(), parent))
}
