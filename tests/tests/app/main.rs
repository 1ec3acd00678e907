// The ACP stand-in agent is a Unix script (tests/src/acp/, Unix only).
#[cfg(unix)]
mod agents;
#[path = "support/mod.rs"]
mod app_support;
mod approvals;
mod bench;
mod bench_forks;
mod bench_repo;
mod cli_tool;
mod cost;
mod files;
mod first_run;
mod fork;
mod names;
mod navigation;
mod race;
// A real OpenSSH server on loopback: the Unix test machines'.
#[cfg(unix)]
mod remote;
#[cfg(unix)]
mod remote_race;
mod rewind;
mod search;
mod shell;
