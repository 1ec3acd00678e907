//! Logging setup for the shells.
//!
//! Logs carry ids, states, timings and error codes — never prompts, message text or keys. Code
//! that logs harness output must log its length or kind, not its content.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::{fmt, prelude::*, EnvFilter};

use crate::data_dir;

/// How many daily log files the app keeps before the oldest is deleted.
const KEPT_LOG_FILES: usize = 7;

fn filter(default: &str) -> EnvFilter {
    EnvFilter::try_from_env("FORKHOST_LOG").unwrap_or_else(|_| EnvFilter::new(default))
}

/// Human-readable logs on stderr (CLI and development). Quiet unless `FORKHOST_LOG` asks.
pub fn init_stderr(default_filter: &str) {
    let _ = tracing_subscriber::registry()
        .with(filter(default_filter))
        .with(fmt::layer().with_writer(std::io::stderr).with_target(false))
        .try_init();
}

/// The app's logs: a daily-rotated file in `log_dir` (seven kept), plus stderr in debug builds.
/// Keep the returned guard alive for the life of the process, or buffered lines are lost.
pub fn init_app(log_dir: &Path) -> std::io::Result<WorkerGuard> {
    let appender = DailyFile::open(log_dir)?;
    let (writer, guard) = tracing_appender::non_blocking(appender);
    let file_layer = fmt::layer().with_writer(writer).with_ansi(false);
    let stderr_layer = cfg!(debug_assertions)
        .then(|| fmt::layer().with_writer(std::io::stderr).with_target(false));
    let _ = tracing_subscriber::registry()
        .with(filter("info"))
        .with(file_layer)
        .with(stderr_layer)
        .try_init();
    Ok(guard)
}

/// `forkhost.<UTC date>.log`, a new file each UTC day, the oldest beyond [`KEPT_LOG_FILES`]
/// deleted — the names and rotation of `tracing_appender`'s daily appender, which cannot make
/// its files private: these are created `0600` (Unix) whatever the umask.
struct DailyFile {
    dir: PathBuf,
    /// The UTC day (days since the epoch) `file` belongs to: compared on every write, so a
    /// number rather than the formatted date.
    day: u64,
    file: File,
}

/// Days since the Unix epoch, in UTC.
fn utc_day(at: SystemTime) -> u64 {
    at.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / 86_400)
}

impl DailyFile {
    fn open(dir: &Path) -> std::io::Result<Self> {
        data_dir::create_private_dir(dir)?;
        let now = SystemTime::now();
        let file = data_dir::open_private_file(&dir.join(file_name(&utc_date(now))))?;
        let daily = DailyFile {
            dir: dir.to_owned(),
            day: utc_day(now),
            file,
        };
        daily.prune();
        Ok(daily)
    }

    fn prune(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        let mut logs: Vec<String> = entries
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.starts_with("forkhost.") && n.ends_with(".log") && n.len() > 13)
            .collect();
        // ISO dates sort by name.
        logs.sort_unstable_by(|a, b| b.cmp(a));
        for old in logs.iter().skip(KEPT_LOG_FILES) {
            let _ = std::fs::remove_file(self.dir.join(old));
        }
    }
}

impl Write for DailyFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let now = SystemTime::now();
        let today = utc_day(now);
        if today != self.day {
            // Keep writing to yesterday's file if today's cannot be made.
            let name = file_name(&utc_date(now));
            if let Ok(file) = data_dir::open_private_file(&self.dir.join(name)) {
                self.file = file;
                self.day = today;
                self.prune();
            }
        }
        self.file.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

fn file_name(date: &str) -> String {
    format!("forkhost.{date}.log")
}

/// `YYYY-MM-DD` of a time, in UTC.
fn utc_date(at: SystemTime) -> String {
    let date = time::OffsetDateTime::from(at).date();
    format!(
        "{:04}-{:02}-{:02}",
        date.year(),
        u8::from(date.month()),
        date.day()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_are_utc_calendar_days() {
        let at = |secs: u64| utc_date(SystemTime::UNIX_EPOCH + Duration::from_secs(secs));
        assert_eq!(at(0), "1970-01-01");
        assert_eq!(at(86_399), "1970-01-01");
        assert_eq!(at(86_400), "1970-01-02");
        assert_eq!(at(951_782_400), "2000-02-29");
        assert_eq!(at(1_709_164_800), "2024-02-29");
        assert_eq!(at(1_796_083_199), "2026-11-30");
        assert_eq!(at(1_796_083_200), "2026-12-01");
        assert_eq!(at(4_102_444_800), "2100-01-01");
    }

    #[test]
    fn keeps_the_newest_files_only() {
        let tmp = tempfile::tempdir().unwrap();
        for day in 1..=9 {
            std::fs::write(tmp.path().join(format!("forkhost.2020-01-0{day}.log")), b"").unwrap();
        }
        std::fs::write(tmp.path().join("other.txt"), b"").unwrap();
        let mut daily = DailyFile::open(tmp.path()).unwrap();
        daily.write_all(b"a line\n").unwrap();
        let mut names: Vec<String> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names.len(), KEPT_LOG_FILES + 1, "{names:?}");
        assert!(names.contains(&"other.txt".to_owned()));
        assert!(names.contains(&file_name(&utc_date(SystemTime::now()))));
        assert!(!names.contains(&"forkhost.2020-01-03.log".to_owned()));
        assert!(names.contains(&"forkhost.2020-01-04.log".to_owned()));
    }

    #[cfg(unix)]
    #[test]
    fn log_files_and_their_folder_are_private() {
        use std::os::unix::fs::MetadataExt;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("logs");
        let mut daily = DailyFile::open(&dir).unwrap();
        daily.write_all(b"x\n").unwrap();
        let day = SystemTime::UNIX_EPOCH + Duration::from_secs(daily.day * 86_400);
        let file = dir.join(file_name(&utc_date(day)));
        assert_eq!(std::fs::metadata(&dir).unwrap().mode() & 0o777, 0o700);
        assert_eq!(std::fs::metadata(&file).unwrap().mode() & 0o777, 0o600);
        assert_eq!(std::fs::read(&file).unwrap(), b"x\n");
    }
}
