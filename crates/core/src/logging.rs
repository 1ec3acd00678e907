//! Logging setup for the shells.
//!
//! Logs carry ids, states, timings and error codes — never prompts, message text or keys. Code
//! that logs harness output must log its length or kind, not its content.

use std::path::Path;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_appender::rolling::{Builder, Rotation};
use tracing_subscriber::{fmt, prelude::*, EnvFilter};

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
    std::fs::create_dir_all(log_dir)?;
    let appender = Builder::new()
        .rotation(Rotation::DAILY)
        .filename_prefix("forkhost")
        .filename_suffix("log")
        .max_log_files(KEPT_LOG_FILES)
        .build(log_dir)
        .map_err(std::io::Error::other)?;
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
