mod acp;
#[cfg(unix)]
mod agents;
mod approvals;
#[cfg(unix)]
mod bench_remote;
mod branches;
mod cost;
mod doctor;
mod files;
mod fork;
#[path = "../host/kit/mod.rs"]
mod host_kit;
mod race;
// A real OpenSSH server on loopback: the Unix test machines'.
#[cfg(unix)]
mod remote;
#[cfg(unix)]
mod remote_disk;
#[cfg(unix)]
mod remote_files;
#[cfg(unix)]
mod remote_network;
mod rewind;
mod search;
mod security;
mod spare;
mod trust;
