#!/usr/bin/env bash
# Every benchmark of the budgets for real repositories (docs/architecture.md, "Budgets") in one run, at
# the issue's size, so its figures sit side by side from the same machine and hour:
#
#   1. cargo bench -p forkhost-worktree --bench checkpoint
#        a checkpoint with 0, 10 and 1,000 changed files beside `git status`; a fork's worktree
#        (returned, files ready) beside `git worktree add`; a fork claiming a spare worktree
#   2. tests/tests/host/bench_live_forks.rs   1, 2, 4, 8 live forks: CPU, memory, checkpoints
#      tests/tests/host/bench_warm_fork.rs    a warm Codex / Pi fork through the Host
#      tests/tests/cli/bench_remote.rs        a remote host's round trips, loopback and +50 ms
#   3. the app on its release build (custom protocol, as packaged), under a virtual display:
#        app/bench        fork window (300 / 10,000 messages, quiet and loaded, every harness),
#                         10 tabs' memory, a streamed 200 KB reply's frames, scrolling
#        app/bench_forks  the first fork of a Codex / Pi thread (spare started on open), N tabs
#        app/bench_repo   click → fork window in the big repository, the fill, beside git
#
# Nothing here asserts a time: the figures are printed beside their anchors. Nothing touches
# your real ~/.claude, ~/.codex or ~/.pi (every bench has its own temporary HOME).
#
#   scripts/bench.sh                        everything, 50,000 files / 1 GB (about 30 min)
#   FORKHOST_BENCH_FILES=5000 scripts/bench.sh      a smaller repository for 2 and app/bench_repo
#   FORKHOST_BENCH_DIR=/mnt/xfs scripts/bench.sh    the repositories on another file system
#                                           (one with copy-on-write clones: XFS, btrfs, APFS)
#   scripts/bench.sh app                    only the app's benchmarks (3)
#
# Needs what scripts/test.sh needs (scripts/setup.sh --tests installs it) and ~6 GB free where
# the repositories go. The full log is also written to test-artifacts/bench.log.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$forkhost_root"

only="${1:-all}"
case "$only" in all | app) ;; *) echo "usage: scripts/bench.sh [app]" >&2; exit 2 ;; esac

export FORKHOST_BENCH_FILES="${FORKHOST_BENCH_FILES:-50000}"
if [[ -n "${FORKHOST_BENCH_DIR:-}" ]]; then
  # The host and app benches make their repositories under TMPDIR.
  mkdir -p "$FORKHOST_BENCH_DIR/tmp"
  export TMPDIR="$FORKHOST_BENCH_DIR/tmp"
fi

mkdir -p test-artifacts
exec > >(tee test-artifacts/bench.log) 2>&1

bash scripts/setup.sh --tests
eval "$(bash scripts/install-harnesses.sh --print-env)"
export FORKHOST_CLAUDE_BIN FORKHOST_CODEX_BIN FORKHOST_PI_BIN FORKHOST_OPENCODE_BIN FORKHOST_GEMINI_BIN

step "this machine"
printf '%s, %s cores, %s\n' "$(uname -sr)" "$(nproc)" \
  "$(awk '/MemTotal/ {printf "%.1f GB memory", $2 / 1048576}' /proc/meminfo)"
where="${FORKHOST_BENCH_DIR:-$CARGO_TARGET_DIR}"
printf 'repositories on %s (%s)\n' "$where" "$(df -T "$where" | awk 'NR == 2 {print $2}')"
printf 'commit %s, %s files\n' "$(git rev-parse --short HEAD 2>/dev/null || echo '?')" "$FORKHOST_BENCH_FILES"

if [[ "$only" == all ]]; then
  step "1. a checkpoint and a fork's worktree in a 50,000-file / 1 GB repository (cargo bench)"
  cargo bench -p forkhost-worktree --bench checkpoint

  step "2. live forks from 1 to 8 ($FORKHOST_BENCH_FILES files)"
  cargo test --release -p forkhost-tests --test host -- --exact $(layer_tests host '^bench_live_forks::' --release) --nocapture

  step "2b. a warm native fork through the Host, Codex and Pi"
  cargo test --release -p forkhost-tests --test host -- --exact $(layer_tests host '^bench_warm_fork::' --release) --nocapture --test-threads 1

  step "2c. a remote host's round trips (the real sshd on loopback, then 50 ms of round trip)"
  export FORKHOST_SSHD="${FORKHOST_SSHD:-/usr/sbin/sshd}"
  cargo build --release -p forkhost-cli
  cargo test --release -p forkhost-tests --test cli -- --exact $(layer_tests cli '^bench_remote::' --release) --nocapture
fi

step "3. the app, release build"
ui_build
cargo build --release -p forkhost-app --features tauri/custom-protocol
SKIP_BUILD=1 FORKHOST_APP_BINARY="$CARGO_TARGET_DIR/release/forkhost-app" \
  bash scripts/app-e2e.sh bench bench_forks bench_repo
