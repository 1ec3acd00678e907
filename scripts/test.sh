#!/usr/bin/env bash
# Installs what is missing, then runs the whole test suite: formatting and lints, the Rust tests
# (store, harness readers, core, CLI, fake model, the real harness CLIs), the mutation check of
# the code changed since the last green run, the UI's unit tests, the Windows and macOS lab, and
# the desktop app and its .deb end to end under a virtual display over WebDriver. It ends with a
# table of its steps and how long each took (scripts/steps.sh), and warns loudly, naming the
# slowest steps, when the run took longer than its 45-minute budget (CI stops at 90).
#
# What waits more than it computes runs beside what computes: while the real-CLI tests wait on
# harness processes and the fake model, the app and its packages are built, the Windows and
# macOS lab checks and the mutation check run, each at the lowest CPU priority (nice 19) so the
# tests keep the cores they ask for. The app tests, the .deb and the benchmarks run alone.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$forkhost_root"
mkdir -p test-artifacts
source scripts/steps.sh

# A test whose harness CLI, app or .deb is missing fails here instead of skipping (a plain
# `cargo test` still skips), and each such test records whether it ran (tests/src/need.rs); the
# run ends with how many of them ran for real.
export FORKHOST_REQUIRE_HARNESSES="${FORKHOST_REQUIRE_HARNESSES:-1}"
# The tally lives in this checkout: two runs on one machine (two clones) share the cache folder,
# and a shared tally would let one run wipe the other's counts.
export FORKHOST_TEST_TALLY="$forkhost_root/test-artifacts/test-tally"
: >"$FORKHOST_TEST_TALLY"
tally_args=()
[[ "$FORKHOST_REQUIRE_HARNESSES" == 1 ]] && tally_args=(--require)
finish() {
  local status=$?
  # The step that stopped the run is marked so (not the tally's).
  if ((status)); then step_close "FAILED ($status)"; fi
  step "tests that need a harness CLI, the app or the package"
  if ! bash scripts/test-tally.sh "${tally_args[@]}" "$FORKHOST_TEST_TALLY"; then
    step_close "FAILED"
    ((status)) || status=1
  fi
  step_close
  steps_table "$status"
  exit "$status"
}
trap finish EXIT

# The test binaries cargo builds for forkhost-tests with these options, as `name<TAB>path`
# lines (the library's unit tests are `forkhost_tests`, the fake model's `fake-model`).
test_binaries() {
  cargo test -p forkhost-tests "$@" --no-run --message-format=json-render-diagnostics |
    python3 -c '
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m.get("profile", {}).get("test"):
        print(m["target"]["name"] + "\t" + m["executable"])'
}

# Runs one of those binaries as `cargo test` would (from the crate's folder), with libtest's
# arguments.
run_e2e() {
  local name="$1"
  shift
  (cd tests && CARGO_MANIFEST_DIR="$PWD" "${e2e_bin[$name]}" "$@")
}

# Runs the tests of a layer binary whose names match an extended regex, if any.
run_named() {
  local layer="$1" pattern="$2" names
  names="$(run_e2e "$layer" --list --format terse | names_matching "$pattern")"
  [[ -n "$names" ]] || { echo "no $layer test matches $pattern" >&2; return 1; }
  # shellcheck disable=SC2086 # one name a word
  run_e2e "$layer" --exact $names
}

step "install what is missing (scripts/setup.sh --tests)"
bash scripts/setup.sh --tests
eval "$(bash scripts/install-harnesses.sh --print-env)"
export FORKHOST_CLAUDE_BIN FORKHOST_CODEX_BIN FORKHOST_PI_BIN FORKHOST_OPENCODE_BIN FORKHOST_GEMINI_BIN
# The remote-host tests' OpenSSH server (tests/src/sshd.rs); setup.sh installed it.
export FORKHOST_SSHD=/usr/sbin/sshd

# The newest harness versions, the Windows and macOS lab's tools and Wine are needed only later:
# they download while the first steps compile.
newest_differs() (
  source scripts/harness-versions.env
  old="${1}_VERSION" new="${1}_NEWEST_VERSION"
  [[ "${!old}" != "${!new}" ]]
)
newest=()
newest_differs CLAUDE_CODE && newest+=(claude)
newest_differs CODEX && newest+=(codex)
newest_differs PI_CODING_AGENT && newest+=(pi)
install_later_tools() {
  if ((${#newest[@]})); then bash scripts/install-harnesses.sh --set newest; fi
  bash scripts/cross-check.sh --setup
  apt_install_missing wine64 wine
}
step_background "install the newest harness CLIs, the Windows/macOS lab and Wine" install_later_tools

step "rustfmt"
cargo fmt --all -- --check

step "the UI: build (embedded into the app) and lint"
ui_build
npm run lint --silent -w ui

step "clippy"
cargo clippy --workspace --all-targets -- -D warnings

step "shared crates stay free of Tauri"
# Every workspace member but the app itself, from cargo's own list (a crate added later is
# checked without anyone listing it here).
shared_crates="$(cargo metadata --no-deps --offline --format-version 1 | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    if p["name"] != "forkhost-app":
        print(p["name"])')"
[[ -n "$shared_crates" ]] || { echo "cargo metadata listed no crate" >&2; exit 1; }
for crate in $shared_crates; do
  if cargo tree -p "$crate" -e normal --prefix none | grep -qE '^tauri( |-)'; then
    echo "$crate depends on tauri" >&2
    exit 1
  fi
done

step "Rust tests: every crate's own"
# The end-to-end tests run the `forkhost` binary itself; `cargo test` alone does not build it.
cargo build -p forkhost-cli
cargo test --workspace --exclude forkhost-tests

step "Rust tests: build the end-to-end binaries (tests/tests/{harness,host,cli,support})"
# One binary per layer (tests/tests/<layer>/main.rs, a module per file). They are run directly
# (below), not through cargo, so cargo's lock on the target folder is free for the app's build
# beside them.
e2e_layers=(support harness host cli)
declare -A e2e_bin=()
while IFS=$'\t' read -r name exe; do e2e_bin[$name]="$exe"; done < <(test_binaries --lib --bins "${e2e_layers[@]/#/--test=}")
for layer in "${e2e_layers[@]}" forkhost_tests fake-model; do
  [[ -x "${e2e_bin[$layer]:-}" ]] || { echo "cargo built no test binary for $layer" >&2; exit 1; }
done

step_wait "install the newest harness CLIs, the Windows/macOS lab and Wine"

# Beside the end-to-end tests, at the lowest priority: what only computes.
# One profile for the app, its packages and the app benchmarks: debug, whose dependencies the
# tests above have compiled already (a release build compiles the whole graph again, optimized:
# on a cold machine that was 40 of its minutes). The packages first: `tauri build` leaves its
# own app binary (with the test updater's config) where the app tests look, and the app's
# build then puts the plain one back (only the app crate compiles again).
build_app_and_packages() {
  FORKHOST_PACKAGE_PROFILE=debug nice -n 19 bash scripts/deb-e2e.sh --build-only
  nice -n 19 bash scripts/app-e2e.sh --build-only
}
step_background "build the app and its .deb/.rpm (debug)" build_app_and_packages
windows_and_macos() {
  nice -n 19 bash scripts/cross-check.sh
  nice -n 19 bash scripts/wine-smoke.sh
}
step_background "Windows and macOS: the workspace type-checks (scripts/cross-check.sh), forkhost.exe under Wine (scripts/wine-smoke.sh)" windows_and_macos
step_background "mutation check: the store, worktree and core decision code changed since the last green run (scripts/mutants.sh)" \
  nice -n 19 bash scripts/mutants.sh

step "Rust tests: the fake model, the guards, and the real harness CLIs (support, harness, host, cli)"
run_e2e forkhost_tests
run_e2e fake-model
run_e2e support
run_e2e harness
run_e2e host --skip bench_
run_e2e cli --skip bench_

step "Rust tests: the Host's and the remote host's benchmarks, one process each, quick form (figures: scripts/bench.sh)"
# A second run on unchanged code skips what passed on exactly its inputs (unless_passed_on).
host_benchmarks() {
  local layer name
  for layer in host cli; do
    for name in $(run_e2e "$layer" --list --format terse | names_matching '^bench_'); do
      FORKHOST_BENCH_QUICK=1 run_e2e "$layer" --exact "$name" --nocapture --test-threads=1
    done
  done
}
unless_passed_on host-benchmarks \
  "$(inputs_hash Cargo.toml Cargo.lock crates tests/Cargo.toml tests/src tests/tests/host tests/tests/cli scripts/harness-versions.env)" \
  host_benchmarks

step "the real-CLI suites again, against the newest verified harness versions"
# Only for the harnesses whose newest pin differs from the oldest (the rest just ran): its own
# file of the harness binary, and its tests in the shared files (their names carry the
# harness's name: smoke; live sync, restart, races and streaming in host::behaviour, a crash at
# every fork step in host::fork_crash, the directions of continuing in another agent in
# host::continue_in, rewind and undo in host::rewind and cli::rewind; cli::fork).
if ((${#newest[@]})); then
  (
    eval "$(bash scripts/install-harnesses.sh --set newest --print-env)"
    export FORKHOST_CLAUDE_BIN FORKHOST_CODEX_BIN FORKHOST_PI_BIN FORKHOST_OPENCODE_BIN FORKHOST_GEMINI_BIN
    for harness in "${newest[@]}"; do
      run_named harness "^(${harness}::|smoke::.*${harness})"
      run_named host "^(behaviour|fork_crash|continue_in|rewind)::.*${harness}"
      run_named cli "^(fork|rewind)::.*${harness}"
    done
  )
fi

step "TypeScript bindings are current"
if git rev-parse --git-dir >/dev/null 2>&1; then
  changed="$(git status --porcelain -- ui/src/bindings)"
  [[ -z "$changed" ]] || {
    echo "$changed" >&2
    echo "ui/src/bindings changed: commit the regenerated types" >&2
    exit 1
  }
fi

step "UI unit tests"
npm test --silent

step "waiting for the steps beside"
beside_failed=0
for name in "build the app and its .deb/.rpm (debug)" \
  "Windows and macOS: the workspace type-checks (scripts/cross-check.sh), forkhost.exe under Wine (scripts/wine-smoke.sh)" \
  "mutation check: the store, worktree and core decision code changed since the last green run (scripts/mutants.sh)"; do
  step_wait "$name" || beside_failed=1
done
((beside_failed == 0)) || { echo "a step beside the tests failed (its output is above)" >&2; exit 1; }

step "desktop app end to end (every file of tests/tests/app but the benchmarks, debug build)"
SKIP_BUILD=1 bash scripts/app-e2e.sh --no-bench

step "packaging: workflow lint, then the .deb installed and run end to end"
bash scripts/lint-workflows.sh
FORKHOST_PACKAGE_PROFILE=debug SKIP_BUILD=1 bash scripts/deb-e2e.sh

step "app benchmarks, quick form, on the tests' build (they run so they cannot rot; figures: scripts/bench.sh, release)"
app_benchmarks() {
  SKIP_BUILD=1 FORKHOST_BENCH_QUICK=1 bash scripts/app-e2e.sh bench bench_forks bench_repo
}
unless_passed_on app-benchmarks \
  "$(inputs_hash Cargo.toml Cargo.lock crates src-tauri ui icons package.json package-lock.json tests/Cargo.toml tests/src tests/tests/app scripts/app-e2e.sh scripts/harness-versions.env)" \
  app_benchmarks

step "the mutation check's baseline: this run was green"
# The next run's mutation check takes the code changed since here (scripts/mutants.sh).
bash scripts/mutants.sh --mark-green
