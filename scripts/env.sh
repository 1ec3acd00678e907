# Sourced by the other scripts: where caches live (outside the clone, so a fresh clone reuses
# them), and the PATH additions for tools the setup installs.
forkhost_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export FORKHOST_CACHE="${FORKHOST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/forkhost}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$FORKHOST_CACHE/target}"
# Tools the setup installs with cargo (tauri-driver) and npm (a newer Node when needed).
export PATH="$FORKHOST_CACHE/tools/bin:$FORKHOST_CACHE/node/node_modules/node/bin:$HOME/.cargo/bin:$PATH"

# A failing test's error is its message and context chain. CI shows only the tail of a failing
# test's output, and an error's backtrace (anyhow captures one when RUST_BACKTRACE is set)
# pushed the message itself out of it. Panics keep their backtraces.
export RUST_LIB_BACKTRACE="${RUST_LIB_BACKTRACE:-0}"

step() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }

# Installs the Debian packages among the arguments that are not installed yet (sudo only when
# not root); shared by setup.sh and the lab scripts.
apt_install_missing() {
  local missing=() pkg sudo=""
  [[ "$(id -u)" -ne 0 ]] && sudo="sudo"
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  ((${#missing[@]})) || return 0
  step "apt: installing ${missing[*]}"
  $sudo apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# Builds the UI (ui/dist, which the app embeds) unless it was built from these very sources (a
# hash of them is kept beside it), so a run that needs it in several steps builds it once.
ui_sources_hash() {
  find ui package.json package-lock.json \( -path ui/dist -o -path ui/node_modules \) -prune \
    -o -type f -print0 | sort -z | xargs -0 sha1sum | sha1sum | cut -d' ' -f1
}
ui_build() {
  local hash
  hash="$(ui_sources_hash)"
  [[ -f ui/dist/index.html && "$(cat ui/dist/.sources-hash 2>/dev/null)" == "$hash" ]] && return 0
  step "the UI build (ui/dist)"
  npm run build --silent
  echo "$hash" >ui/dist/.sources-hash
}

# The tests of one layer binary of tests/tests/ (harness, host, cli, app, pkg, support: each
# folder is one binary, its files its modules) whose full names match an extended regex, one a
# line, from the binary's own list (built first if needed). Cargo options may follow the
# regex (e.g. --release). Run them with `cargo test … -- --exact NAMES…`.
#
#   layer_tests app '^(fork|rewind)::'      the app's fork and rewind files
#   layer_tests host '^bench_' --release    the Host's benchmarks
layer_tests() {
  local layer="$1" pattern="$2"
  shift 2
  local listed
  listed="$(cargo test -q -p forkhost-tests "$@" --test "$layer" -- --list --format terse)" || return
  names_matching "$pattern" <<<"$listed"
}

# From libtest's `--list --format terse` on stdin, the test names matching an extended regex.
names_matching() {
  sed -n 's/: test$//p' | { grep -E "$1" || true; }
}

# A hash of what a step's work is made of: every tracked or new file under the given paths and
# the toolchain. Steps whose result cannot change while it stays the same (benchmarks that
# passed) keep it as a stamp.
inputs_hash() {
  {
    git ls-files -z -co --exclude-standard -- "$@" | xargs -0 sha256sum 2>/dev/null
    rustc -V
  } | sha256sum | cut -d' ' -f1
}

# Runs "$@" unless the stamp NAME holds HASH (it passed on these very inputs), and stamps it
# when it passes. For benchmarks only: they assert nothing about time and run so that they
# cannot rot, which code that did not change cannot do.
unless_passed_on() {
  local name="$1" hash="$2" stamp="$FORKHOST_CACHE/passed/$1"
  shift 2
  # FORKHOST_BENCH_ALWAYS=1: run them anyway (a run whose tally must hold every benchmark).
  if [[ "${FORKHOST_BENCH_ALWAYS:-}" != 1 && -n "$hash" && "$(cat "$stamp" 2>/dev/null)" == "$hash" ]]; then
    echo "passed on these very inputs before ($(date -r "$stamp" '+%F %H:%M')): not run again" >&2
    return 0
  fi
  "$@"
  mkdir -p "$(dirname "$stamp")"
  echo "$hash" >"$stamp"
}
