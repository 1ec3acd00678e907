#!/usr/bin/env bash
# Installs what is missing, then runs the whole test suite: formatting and lints, the Rust tests
# (store, harness readers, core, CLI, fake model, the real harness CLIs), the mutation check of
# the store and worktree code changed since its baseline, the UI's unit tests, and the desktop
# app end to end under a virtual display over WebDriver.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$forkhost_root"

bash scripts/setup.sh --tests
eval "$(bash scripts/install-harnesses.sh --print-env)"
export FORKHOST_CLAUDE_BIN FORKHOST_CODEX_BIN FORKHOST_PI_BIN

# A test whose harness CLI, app or .deb is missing fails here instead of skipping (a plain
# `cargo test` still skips), and each such test records whether it ran (tests/src/need.rs); the
# run ends with how many of them ran for real.
export FORKHOST_REQUIRE_HARNESSES="${FORKHOST_REQUIRE_HARNESSES:-1}"
# The tally lives in this checkout: two runs on one machine (two clones) share the cache folder,
# and a shared tally would let one run wipe the other's counts.
mkdir -p test-artifacts
export FORKHOST_TEST_TALLY="$forkhost_root/test-artifacts/test-tally"
: >"$FORKHOST_TEST_TALLY"
tally_args=()
[[ "$FORKHOST_REQUIRE_HARNESSES" == 1 ]] && tally_args=(--require)
print_tally() {
  local status=$?
  step "tests that need a harness CLI, the app or the package"
  bash scripts/test-tally.sh "${tally_args[@]}" "$FORKHOST_TEST_TALLY" || ((status)) || status=1
  exit "$status"
}
trap print_tally EXIT

step "rustfmt"
cargo fmt --all -- --check

step "the UI build (embedded into the app)"
npm run build --silent
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

step "Rust tests"
# The end-to-end tests run the `forkhost` binary itself; `cargo test` alone does not build it.
# The app_* and pkg_* tests drive a built app or package: app-e2e.sh and deb-e2e.sh run them.
cargo build -p forkhost-cli
cargo test --workspace --exclude forkhost-tests
plain_tests=()
for file in tests/tests/*.rs; do
  name="$(basename "$file" .rs)"
  case "$name" in app_* | pkg_*) ;; *) plain_tests+=(--test "$name") ;; esac
done
cargo test -p forkhost-tests --lib --bins "${plain_tests[@]}"

step "mutation check: the store, worktree and core decision code changed since the baseline (scripts/mutants.sh)"
# Each small mistake cargo-mutants makes in that code must fail one of the crate's own tests.
bash scripts/mutants.sh

step "the real-CLI suites again, against the newest verified harness versions"
# Only for the harnesses whose newest pin differs from the oldest (the rest just ran): its own
# suite, and its tests in the shared suites (their names carry the harness's name: live sync,
# restart, races and streaming in host_behaviour, a crash at every fork step in host_fork_crash,
# the directions of continuing in another agent in host_continue, rewind and undo in
# host_rewind and cli_rewind).
newest_differs() (
  source scripts/harness-versions.env
  old="${1}_VERSION" new="${1}_NEWEST_VERSION"
  [[ "${!old}" != "${!new}" ]]
)
newest=()
newest_differs CLAUDE_CODE && newest+=(claude)
newest_differs CODEX && newest+=(codex)
newest_differs PI_CODING_AGENT && newest+=(pi)
if ((${#newest[@]})); then
  (
    eval "$(bash scripts/install-harnesses.sh --set newest --print-env)"
    for harness in "${newest[@]}"; do
      cargo test -p forkhost-tests --test "harness_${harness}"
      cargo test -p forkhost-tests --test harness_smoke --test cli_fork --test host_behaviour \
        --test host_fork_crash --test host_continue --test host_rewind --test cli_rewind -- "$harness"
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

step "Windows and macOS: the workspace type-checks for both (scripts/cross-check.sh)"
bash scripts/cross-check.sh

step "Windows: forkhost.exe under Wine (scripts/wine-smoke.sh)"
bash scripts/wine-smoke.sh

step "desktop app end to end"
# Every app test but the benchmarks, on the debug build; the benchmarks run on the release
# build the .deb step makes (what users run), after it.
app_tests=()
for file in tests/tests/app_*.rs; do
  name="$(basename "$file" .rs)"
  [[ "$name" == app_bench* ]] || app_tests+=("$name")
done
bash scripts/app-e2e.sh "${app_tests[@]}"
step "packaging: workflow lint, then the .deb installed and run end to end"; bash scripts/lint-workflows.sh; bash scripts/deb-e2e.sh

step "app benchmarks on the release build (figures printed, nothing asserted about time)"
SKIP_BUILD=1 FORKHOST_APP_BINARY="$CARGO_TARGET_DIR/release/forkhost-app" \
  bash scripts/app-e2e.sh app_bench app_bench_forks app_bench_repo
