#!/usr/bin/env bash
# Mutation testing of the crates that keep the user's data and files (forkhost-store,
# forkhost-worktree), each against its own tests: cargo-mutants changes the code one small
# mistake at a time and a test must fail for each. Settings and the reasoned exclusions are in
# .cargo/mutants.toml; tests/README.md ("Mutation testing") has the figures.
#
#   scripts/mutants.sh           the mutants in the code changed since the last green run
#                                (the commit in .cargo/mutants-baseline), what scripts/test.sh runs
#   scripts/mutants.sh --mark-green
#                                moves the baseline to HEAD: scripts/test.sh's last step, once
#                                the whole suite passed (commit the file with your next commit;
#                                CI's clone throws its own move away)
#   scripts/mutants.sh --full    every mutant of both crates; when none is missed and the tree
#                                is committed, moves the baseline to HEAD (commit the file)
#   scripts/mutants.sh --core    every mutant of the core's checked modules (below), against
#                                the core's own tests; moves nothing
#
# The in-diff check covers those core modules too.
#
# Extra arguments go to cargo mutants (e.g. -f crates/store/src/open.rs with --full).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$forkhost_root"

crates=(store worktree)
# The core's modules that decide what runs and what is kept (the fork engine, approvals, trust,
# permission modes, a thread's files): in the in-diff check their changes must be caught by the
# core's own in-process tests (crates/core/src/test_host.rs: a real Host and store, no harness
# process) too. The rest of the core is tested end to end, which cargo-mutants cannot run per
# mutant.
core_paths=(
  crates/core/src/fork
  crates/core/src/requests/approvals.rs
  crates/core/src/trust
  crates/core/src/thread/permissions.rs
  crates/core/src/files
)
# Where those modules lived before the core moved into wings: named in the diff too, so that a
# moved file's unchanged lines count as moved, not new.
moved_from=(
  crates/core/src/fork.rs crates/core/src/approvals.rs crates/core/src/trust.rs
  crates/core/src/permissions.rs
)
baseline_file=.cargo/mutants-baseline
out=test-artifacts/mutants
# The suite's own target folder, so the dependencies the Rust tests built are reused as they
# are (a folder of its own would build every one once more, cold: 12 minutes of a cold run's 2
# cores, measured). The mutated builds happen in a copy of the tree elsewhere, but cargo names a
# workspace crate's artifacts by its path relative to the workspace, the same in the copy: a
# mutated `forkhost-core` would land where the real one is, and a build beside this check (the
# app, the CLI) would link it — seen: a CLI refusing every folder, built while a mutant of
# `files/moved.rs` was being tested. So the workspace crates build here under a profile
# setting of their own (a codegen-units count no build of the real tree uses), which gives
# them artifacts of their own; the dependencies stay shared.
export CARGO_TARGET_DIR="${FORKHOST_MUTANTS_TARGET:-$CARGO_TARGET_DIR}"
apart=()
for member in store harness worktree core; do
  apart+=(-C --config -C "profile.dev.package.\"forkhost-$member\".codegen-units=255")
done

command -v cargo-mutants >/dev/null || {
  echo "cargo-mutants is missing: run scripts/setup.sh --tests" >&2
  exit 1
}

# cargo-mutants exits 2 when a mutant was missed and 3 when the only trouble was a timeout: a
# mutant that made the tests hang (a loop that never ends) did not pass them, so it counts as
# caught, and is listed.
run() {
  local status=0
  rm -rf "$out"
  mkdir -p "$out"
  cargo mutants --no-shuffle -o "$out" "${apart[@]}" "$@" || status=$?
  if [[ -s "$out/mutants.out/timeout.txt" ]]; then
    echo "mutants that made the tests hang (caught, at the cost of a timeout each):" >&2
    sed 's/^/  /' "$out/mutants.out/timeout.txt" >&2
  fi
  ((status == 3)) && status=0
  # cargo-mutants 27 exits 3 when a mutant timed out even if others were missed: a missed
  # mutant fails the run whatever the exit code said.
  [[ -s "$out/mutants.out/missed.txt" ]] && status=2
  if ((status)) && [[ -s "$out/mutants.out/missed.txt" ]]; then
    echo "mutants no test failed on:" >&2
    sed 's/^/  /' "$out/mutants.out/missed.txt" >&2
    echo "each needs a test able to fail on it or, if it cannot change what the code does, an" >&2
    echo "exclusion with its reason in .cargo/mutants.toml" >&2
  fi
  return "$status"
}

packages=()
for crate in "${crates[@]}"; do packages+=(-p "forkhost-$crate"); done

if [[ "${1:-}" == "--core" ]]; then
  shift
  files=()
  for path in "${core_paths[@]}"; do
    if [[ -d "$path" ]]; then files+=(-f "$path/**/*.rs"); else files+=(-f "$path"); fi
  done
  started="$(date +%s)"
  status=0
  run -p forkhost-core "${files[@]}" "$@" || status=$?
  echo "core run: $(($(date +%s) - started)) s" >&2
  exit "$status"
fi

if [[ "${1:-}" == "--mark-green" ]]; then
  # The code a green run tested is HEAD plus what was not committed yet; the baseline can name
  # only HEAD, so uncommitted changes are checked again next time (never skipped).
  git rev-parse --git-dir >/dev/null 2>&1 || exit 0
  head="$(git rev-parse HEAD)"
  if [[ "$(tr -d '[:space:]' <"$baseline_file")" != "$head" ]]; then
    echo "$head" >"$baseline_file"
    echo "mutation baseline moved to ${head:0:12} (the last green run): commit $baseline_file" >&2
  fi
  exit 0
fi

if [[ "${1:-}" == "--full" ]]; then
  shift
  started="$(date +%s)"
  run "${packages[@]}" "$@"
  echo "full run: $(($(date +%s) - started)) s" >&2
  if (($#)); then
    exit 0 # a partial run (a file, a filter) moves nothing
  fi
  if [[ -n "$(git status --porcelain -- crates .cargo)" ]]; then
    echo "uncommitted changes in crates/ or .cargo/: the baseline stays where it is" >&2
    exit 0
  fi
  git rev-parse HEAD >"$baseline_file"
  echo "baseline moved to $(cat "$baseline_file"): commit $baseline_file" >&2
  exit 0
fi

base="$(tr -d '[:space:]' <"$baseline_file")"
# CI clones with full history; a baseline it cannot reach (a rebased or squashed branch) would
# check nothing, so it is an error, not a pass.
if ! git cat-file -e "$base^{commit}" 2>/dev/null || ! git merge-base --is-ancestor "$base" HEAD; then
  echo "the mutation baseline $base ($baseline_file) is not in this branch's history:" >&2
  echo "run scripts/mutants.sh --full and commit the file it writes" >&2
  exit 1
fi

# The working tree against the baseline (committed and uncommitted changes; a new file counts
# once it is added to git), and only the crates whose sources changed.
diff="$(mktemp)"
trap 'rm -f "$diff"' EXIT
git diff --no-ext-diff --no-color -M "$base" -- "${crates[@]/#/crates/}" "${core_paths[@]}" \
  "${moved_from[@]}" >"$diff"
changed=()
for crate in "${crates[@]}" core; do
  if grep -q "^+++ b/crates/$crate/src/.*\.rs$" "$diff"; then changed+=(-p "forkhost-$crate"); fi
done
if ((${#changed[@]} == 0)); then
  echo "no source of ${crates[*]} or the core's checked modules changed since the mutation baseline ${base:0:12}" >&2
  exit 0
fi
echo "mutants in the code changed since ${base:0:12}: ${changed[*]}" >&2
run --in-diff "$diff" "${changed[@]}" "$@"
