//! The Host served to clients over a private Unix socket (docs/architecture.md "Remote hosts",
//! "The daemon"): `forkhost serve` on a machine the user reaches over SSH owns that machine's
//! store and harness processes, so a turn runs on when the connection that started it drops;
//! a client that comes back asks for the events after the last one it saw ([`journal`]) and
//! gets every one it missed, a waiting approval among them. The calls and events are the
//! Host's own types ([`wire`]), one contract whether the Host is in this process or behind
//! the socket.
//!
//! Calls: `thread`, `requests`, `rewind`, `cost`, `files`, `trust`, `search`, `race`, `remote`, base.

mod client;
// The daemon listens on a Unix socket; Windows machines are clients only (for now).
#[cfg(unix)]
mod daemon;
#[cfg(all(test, unix))]
mod daemon_tests;
// The journal and the socket's listener are the daemon's.
#[cfg(unix)]
mod journal;
mod socket;
mod wire;

pub use client::{Connection, Subscription};
#[cfg(unix)]
pub use daemon::{serve, ServeOptions};
pub use socket::socket_path;
pub use socket::Served;
pub use wire::{Call, Entry, Item, RaceCall, Returned, ServerMessage, PROTOCOL};
