#!/usr/bin/env bash
# End-to-end test of the desktop app as a user sees it: builds the UI and the app, runs the app
# under a virtual display (Xvfb, unless $DISPLAY is set) and drives it over WebDriver
# (tauri-driver → WebKitWebDriver) with the `app_*` tests of forkhost-tests: the empty shell
# (app_shell), installing the bundled CLI from Settings (app_cli_tool), the fork flows with the
# real harness CLIs against the fake model (app_fork), approvals, questions, permission modes and
# notifications (app_approvals), a thread's files: fork into a worktree, Changes, Compare, Bring
# back, archive with the worktree, folder trust (app_files), a newcomer's first run with no agent
# installed (app_first_run), and the benchmarks (app_bench: a
# 10,000-message thread, 10 tabs' memory; figures are printed).
#
# Needs: node/npm, the Debian packages libwebkit2gtk-4.1-dev, webkit2gtk-driver, xvfb, xauth, and
# `tauri-driver` on PATH (cargo install tauri-driver --locked; ~/.cargo/bin is searched too).
# Honours CARGO_TARGET_DIR. Screenshots land in test-artifacts/. Exit code = the test's.
#
#   scripts/app-e2e.sh                    build as needed, then run every app test
#   scripts/app-e2e.sh app_fork app_bench only these test files
#   scripts/app-e2e.sh app_fork -- app_pi  only the tests whose names match
#   SKIP_BUILD=1 scripts/app-e2e.sh       test an app that is already built
#   SKIP_BUILD=1 FORKHOST_APP_BINARY=…/release/forkhost-app scripts/app-e2e.sh app_bench
#                                         the benchmarks on a release build
#
# The harness CLIs come from scripts/install-harnesses.sh (their FORKHOST_*_BIN paths are
# exported); a test whose harness is missing skips itself, or fails under
# FORKHOST_REQUIRE_HARNESSES=1 (scripts/test.sh sets it).
set -euo pipefail
# WebKitWebDriver's screenshots hang when WebKit renders without compositing, which the app
# picks by itself on machines without a GPU render node (like CI's): keep compositing on here.
# (app_bench overrides it: it measures the app's own default, without screenshots.)
export WEBKIT_DISABLE_COMPOSITING_MODE=0

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

target_dir="${CARGO_TARGET_DIR:-target}"
case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac
app_binary="${FORKHOST_APP_BINARY:-$target_dir/debug/forkhost-app}"
artifacts="$root/test-artifacts"
mkdir -p "$artifacts"

log() { printf '[app-e2e] %s\n' "$*" >&2; }

PATH="$PATH:$HOME/.cargo/bin"
for tool in tauri-driver WebKitWebDriver; do
  command -v "$tool" >/dev/null || { log "missing $tool (see the header of this script)"; exit 2; }
done

tests=()
filter=()
while [[ $# -gt 0 ]]; do
  if [[ "$1" == "--" ]]; then shift; filter=("$@"); break; fi
  tests+=("$1"); shift
done
if [[ ${#tests[@]} -eq 0 ]]; then
  for file in tests/tests/app_*.rs; do tests+=("$(basename "$file" .rs)"); done
fi
test_args=()
for t in "${tests[@]}"; do test_args+=(--test "$t"); done

if [[ -z "${FORKHOST_CLAUDE_BIN:-}${FORKHOST_CODEX_BIN:-}${FORKHOST_PI_BIN:-}" ]]; then
  log "installing / locating the harness CLIs"
  eval "$(bash scripts/install-harnesses.sh --print-env)" || log "no harness CLIs: their tests skip"
fi
export FORKHOST_CLAUDE_BIN FORKHOST_CODEX_BIN FORKHOST_PI_BIN

if [[ -z "${SKIP_BUILD:-}" ]]; then
  if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
    log "npm ci"
    npm ci --no-audit --no-fund
  fi
  log "building the UI (ui/dist)"
  npm run build --silent
  log "building the app"
  cargo build -p forkhost-app
  # The app's "Install command-line tool" links to the `forkhost` beside it (app_cli_tool).
  log "building the CLI"
  cargo build -p forkhost-cli
  log "building the tests"
  cargo test -p forkhost-tests "${test_args[@]}" --no-run
fi
[[ -x "$app_binary" ]] || { log "no app binary at $app_binary"; exit 2; }

# Xvfb and tauri-driver: started here, stopped on exit.
source scripts/webdriver.sh
trap webdriver_stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
webdriver_start ""

export FORKHOST_APP_BINARY="$app_binary"
log "running ${tests[*]} against $FORKHOST_APP_BINARY"
set +e
# A hung WebDriver call must fail the run, not eat CI's whole budget.
timeout --kill-after=30 "${FORKHOST_APP_E2E_TIMEOUT:-1800}" \
  cargo test -p forkhost-tests "${test_args[@]}" -- --nocapture --test-threads=1 "${filter[@]}"
status=$?
set -e
log "done (exit $status); artifacts in $artifacts"
exit "$status"
