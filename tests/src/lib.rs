//! Shared pieces of the end-to-end tests: the fake model server and temporary harness homes.

pub mod cli;
pub mod fake_model;
pub mod harness_env;
pub mod need;
pub mod procs;
pub mod workspace;
