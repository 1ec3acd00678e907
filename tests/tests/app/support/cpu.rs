//! Where the machine's CPU went over a stretch of a benchmark (say, from a click on Fork to the
//! fork window's paint), by who spent it: the app's own process, its WebKit processes, the
//! harnesses under it, the virtual display (anything else, such as a parallel build, is not
//! read). On a machine of few cores this says whether a step was slow by itself or waited for
//! a core.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use forkhost_tests::procs;

use super::forks::median_p90;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Spender {
    App,
    Web,
    Harness,
    Display,
}

impl Spender {
    const ALL: [Spender; 4] = [
        Spender::Harness,
        Spender::App,
        Spender::Web,
        Spender::Display,
    ];

    fn name(self) -> &'static str {
        match self {
            Spender::App => "app",
            Spender::Web => "web view",
            Spender::Harness => "harness",
            Spender::Display => "display",
        }
    }
}

/// The processes the trace reads, and who each is: the app is the parent of the WebKit
/// processes (whatever its file is called), the harnesses are the app's other descendants.
fn spenders() -> Vec<(u32, Spender)> {
    let mut named = HashMap::new();
    for pid in procs::pids() {
        if let Some(found) = procs::name_and_parent(pid) {
            named.insert(pid, found);
        }
    }
    let apps: Vec<u32> = named
        .iter()
        .filter(|(_, (name, _))| name.starts_with("WebKit"))
        .map(|(_, (_, parent))| *parent)
        .chain(
            named
                .iter()
                .filter(|(_, (name, _))| name.starts_with("forkhost-app"))
                .map(|(pid, _)| *pid),
        )
        .collect();
    let under_app = |mut pid: u32| {
        while let Some((_, parent)) = named.get(&pid) {
            if apps.contains(parent) {
                return true;
            }
            pid = *parent;
        }
        false
    };
    named
        .iter()
        .filter_map(|(&pid, (name, _))| {
            let spender = if apps.contains(&pid) {
                Spender::App
            } else if name.starts_with("WebKit") {
                Spender::Web
            } else if name.starts_with("Xvfb") || name.starts_with("Xorg") {
                Spender::Display
            } else if under_app(pid) {
                Spender::Harness
            } else {
                return None;
            };
            Some((pid, spender))
        })
        .collect()
}

/// When (epoch milliseconds) and each spender's CPU so far.
type Sample = (f64, HashMap<Spender, f64>);

/// The CPU of the app's processes and the display, sampled every 10 ms from its
/// start until dropped, so a stretch known only afterwards (a fork command's, from the page's
/// own marks) can be cut out of it. Only the processes there at the start are read (a warm
/// fork starts none), which keeps the sampler's own cost small.
pub struct CpuTrace {
    samples: Arc<Mutex<Vec<Sample>>>,
    stop: Arc<AtomicBool>,
}

impl CpuTrace {
    pub fn start() -> CpuTrace {
        let watched = spenders();
        let samples = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (into, stopped) = (samples.clone(), stop.clone());
        std::thread::spawn(move || {
            while !stopped.load(Ordering::Relaxed) {
                let mut ms = HashMap::new();
                for (pid, spender) in &watched {
                    *ms.entry(*spender).or_insert(0.0) += procs::cpu_ms(*pid).unwrap_or(0.0);
                }
                let at = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0.0, |d| d.as_secs_f64() * 1e3);
                into.lock().unwrap().push((at, ms));
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        CpuTrace { samples, stop }
    }

    /// The CPU each spender had from `from` to `to` (epoch milliseconds, the page's clock):
    /// from the last sample at or before `from` to the first at or after `to`.
    pub fn between(&self, from: f64, to: f64) -> Option<CpuSpent> {
        let samples = self.samples.lock().unwrap();
        let first = samples.iter().rev().find(|(at, _)| *at <= from)?;
        let last = samples.iter().find(|(at, _)| *at >= to)?;
        let ms = Spender::ALL
            .iter()
            .map(|s| {
                let of = |m: &HashMap<Spender, f64>| m.get(s).copied().unwrap_or(0.0);
                (*s, (of(&last.1) - of(&first.1)).max(0.0))
            })
            .collect();
        Some(CpuSpent {
            wall_ms: last.0 - first.0,
            ms,
        })
    }
}

impl Drop for CpuTrace {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// CPU milliseconds per spender over `wall_ms`.
#[derive(Debug, Clone, Default)]
pub struct CpuSpent {
    pub wall_ms: f64,
    ms: HashMap<Spender, f64>,
}

impl CpuSpent {
    pub fn of(&self, spender: Spender) -> f64 {
        self.ms.get(&spender).copied().unwrap_or(0.0)
    }

    pub fn total(&self) -> f64 {
        self.ms.values().sum()
    }

    /// "harness 48, app 30, web view 95, display 20 ms CPU in 120 ms (1.6 of 2 cores)": only
    /// these (a parallel build's CPU is not counted).
    pub fn line(&self) -> String {
        let parts: Vec<String> = Spender::ALL
            .iter()
            .map(|&s| format!("{} {:.0}", s.name(), self.of(s)))
            .collect();
        format!(
            "{} ms CPU in {:.0} ms ({:.1} of {} cores)",
            parts.join(", "),
            self.wall_ms,
            self.total() / self.wall_ms.max(1.0),
            std::thread::available_parallelism().map_or(1, |n| n.get())
        )
    }

    /// The median of each figure over `runs`.
    pub fn median(runs: &[CpuSpent]) -> CpuSpent {
        let median = |v: Vec<f64>| median_p90(&v).0;
        let mut ms = HashMap::new();
        for s in Spender::ALL {
            ms.insert(s, median(runs.iter().map(|r| r.of(s)).collect()));
        }
        CpuSpent {
            wall_ms: median(runs.iter().map(|r| r.wall_ms).collect()),
            ms,
        }
    }
}
