//! Shared pieces of the end-to-end tests: the fake model server and temporary harness homes.

#[cfg(unix)]
pub mod acp;
pub mod cli;
pub mod fake_model;
pub mod harness_env;
pub mod need;
#[cfg(unix)]
pub mod netns;
pub mod procs;
#[cfg(unix)]
pub mod sshd;
pub mod workspace;

/// `FORKHOST_BENCH_QUICK=1`: the benchmarks' quick form, which `scripts/test.sh` runs so that
/// they cannot rot — every step, quiet only, at a small size. The figures to quote come from
/// `scripts/bench.sh`'s full run.
pub fn bench_quick() -> bool {
    std::env::var_os("FORKHOST_BENCH_QUICK").is_some_and(|v| v == "1")
}

/// The name libtest knows a test by, for a test that re-runs itself in a child process
/// (`--exact NAME`): the layer's binary aggregates its files as modules (`tests/tests/host/`
/// → one `host` binary), so the name is the module path without the binary's own segment.
/// Call it as `test_name(module_path!(), "the_test")`.
pub fn test_name(module_path: &str, test: &str) -> String {
    match module_path.split_once("::") {
        Some((_, within)) => format!("{within}::{test}"),
        None => test.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_test_name_drops_the_binary_segment() {
        assert_eq!(
            super::test_name("host::fork_crash", "t"),
            "fork_crash::t".to_owned()
        );
        assert_eq!(super::test_name("host", "t"), "t".to_owned());
    }
}
