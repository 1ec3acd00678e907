#!/usr/bin/env bash
# Installs the pinned harness CLIs (Claude Code, Codex, Pi + a Node 22 for Pi) from npm into a
# cache outside the clone, and prints the env lines that point the tests at them:
#
#   FORKHOST_CLAUDE_BIN=/abs/path   FORKHOST_CODEX_BIN=/abs/path   FORKHOST_PI_BIN=/abs/path
#
# Usage:
#   bash scripts/install-harnesses.sh               # install if needed, print progress + env lines
#   eval "$(bash scripts/install-harnesses.sh --print-env)"   # stdout holds only the env lines
#
# Cache: ${FORKHOST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/forkhost}/harnesses/<version-hash>/
# where <version-hash> is a hash of scripts/harness-versions.env (and of this machine's
# os/arch). A finished install is marked by a `.complete` file; a repeat run only prints.
# The same lines are also written to <cache>/env. Safe to run concurrently (flock).
set -euo pipefail

print_env_only=0
for arg in "$@"; do
  case "$arg" in
    --print-env) print_env_only=1 ;;
    -h | --help)
      sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "install-harnesses.sh: unknown argument: $arg" >&2
      exit 2
      ;;
  esac
done

log() { echo "install-harnesses: $*" >&2; }

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
versions_file="$script_dir/harness-versions.env"
# shellcheck source=harness-versions.env
source "$versions_file"
: "${CLAUDE_CODE_VERSION:?}" "${CODEX_VERSION:?}" "${PI_CODING_AGENT_VERSION:?}" "${PI_NODE_VERSION:?}"

command -v npm >/dev/null || {
  echo "install-harnesses.sh: npm is required (apt-get install nodejs npm)" >&2
  exit 1
}

platform="$(uname -s)-$(uname -m)"
# The install layout also depends on this script: hash it too, so a changed layout reinstalls.
version_hash="$(cat "$versions_file" "$0" <(echo "$platform") | sha256sum | cut -c1-16)"
cache_root="${FORKHOST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/forkhost}/harnesses"
dest="$cache_root/$version_hash"
mkdir -p "$cache_root"

# One installer at a time per cache (a second caller waits, then finds `.complete`).
exec 9>"$cache_root/.lock"
flock 9

npm_install() { # <prefix> <package@version>...
  local prefix="$1"
  shift
  mkdir -p "$prefix"
  # A package.json of its own keeps npm from walking up into some other project.
  [ -f "$prefix/package.json" ] || echo '{"name":"forkhost-harness","private":true}' >"$prefix/package.json"
  (cd "$prefix" && npm install --no-audit --no-fund --no-package-lock --loglevel=error \
    --no-save "$@" >&2)
}

# Picks the first existing file among the arguments (globs allowed).
first_file() {
  local f
  for f in "$@"; do
    if [ -f "$f" ] && [ -x "$f" ]; then
      echo "$f"
      return 0
    fi
  done
  return 1
}

if [ ! -f "$dest/.complete" ]; then
  start=$(date +%s)
  tmp="$cache_root/.tmp-$version_hash-$$"
  rm -rf "$tmp"
  mkdir -p "$tmp/bin"
  log "installing into $dest (claude-code $CLAUDE_CODE_VERSION, codex $CODEX_VERSION, pi $PI_CODING_AGENT_VERSION, node $PI_NODE_VERSION)"

  # The four installs are independent and mostly network-bound: run them side by side.
  npm_install "$tmp/claude" "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" &
  p1=$!
  npm_install "$tmp/codex" "@openai/codex@$CODEX_VERSION" &
  p2=$!
  npm_install "$tmp/pi" "@earendil-works/pi-coding-agent@$PI_CODING_AGENT_VERSION" &
  p3=$!
  npm_install "$tmp/node" "node@$PI_NODE_VERSION" &
  p4=$!
  fail=0
  for p in $p1 $p2 $p3 $p4; do wait "$p" || fail=1; done
  if [ "$fail" != 0 ]; then
    rm -rf "$tmp"
    echo "install-harnesses.sh: an npm install failed (see above)" >&2
    exit 1
  fi

  # Claude Code: the npm wrapper ships the Bun-compiled native binary as a per-platform
  # optional dependency; spawn it directly (no node in between).
  claude_native="$(first_file "$tmp"/claude/node_modules/@anthropic-ai/claude-code-*/claude \
    "$tmp"/claude/node_modules/@anthropic-ai/claude-code/bin/claude.exe \
    "$tmp"/claude/node_modules/.bin/claude)" || {
    echo "install-harnesses.sh: no claude binary found" >&2
    exit 1
  }
  ln -s "../${claude_native#"$tmp/"}" "$tmp/bin/claude"

  # Codex: a static native binary under vendor/<triple>/bin (it finds its rg and bwrap beside
  # itself); the npm launcher bin/codex.js only execs it, so spawn it directly.
  codex_native="$(first_file "$tmp"/codex/node_modules/@openai/codex-*/vendor/*/bin/codex \
    "$tmp"/codex/node_modules/@openai/codex/vendor/*/bin/codex)" || {
    echo "install-harnesses.sh: no codex binary found" >&2
    exit 1
  }
  ln -s "../${codex_native#"$tmp/"}" "$tmp/bin/codex"

  node_bin="$(first_file "$tmp"/node/node_modules/node/bin/node \
    "$tmp"/node/node_modules/node-*/bin/node)" || {
    echo "install-harnesses.sh: no node binary in the node@$PI_NODE_VERSION package" >&2
    exit 1
  }
  ln -s "../${node_bin#"$tmp/"}" "$tmp/bin/node"
  [ -f "$tmp/pi/node_modules/@earendil-works/pi-coding-agent/package.json" ] || {
    echo "install-harnesses.sh: pi package missing" >&2
    exit 1
  }
  rm -rf "$dest"
  mv "$tmp" "$dest"
  log "installed in $(($(date +%s) - start)) s"
else
  log "already installed: $dest"
fi

# Pi's launcher is (re)written on every run: it is tiny and holds absolute paths.
claude_bin="$(readlink -f "$dest/bin/claude")"
codex_bin="$(readlink -f "$dest/bin/codex")"
node_bin="$(readlink -f "$dest/bin/node")"
pi_pkg="$dest/pi/node_modules/@earendil-works/pi-coding-agent"
pi_main="$(cd "$pi_pkg" && "$node_bin" -e '
  const p = require("./package.json");
  const b = typeof p.bin === "string" ? p.bin : (p.bin.pi || Object.values(p.bin)[0]);
  process.stdout.write(require("path").resolve(b));')"
cat >"$dest/bin/pi" <<EOF
#!/bin/sh
# Generated by install-harnesses.sh: pi $PI_CODING_AGENT_VERSION on node $PI_NODE_VERSION.
exec "$node_bin" "$pi_main" "\$@"
EOF
chmod +x "$dest/bin/pi"
touch "$dest/.complete"

env_lines="FORKHOST_CLAUDE_BIN=$claude_bin
FORKHOST_CODEX_BIN=$codex_bin
FORKHOST_PI_BIN=$dest/bin/pi"
printf '%s\n' "$env_lines" >"$dest/env"

if [ "$print_env_only" = 1 ]; then
  # `export` so that `eval` hands them on to child processes (cargo test).
  printf 'export FORKHOST_CLAUDE_BIN=%q\nexport FORKHOST_CODEX_BIN=%q\nexport FORKHOST_PI_BIN=%q\n' \
    "$claude_bin" "$codex_bin" "$dest/bin/pi"
else
  log "versions: $("$claude_bin" --version 2>/dev/null | head -1) | $("$codex_bin" --version 2>/dev/null | head -1) | pi $("$dest/bin/pi" --version 2>/dev/null | head -1)"
  log "env lines (also in $dest/env; source them with: eval \"\$(bash $0 --print-env)\"):"
  printf '%s\n' "$env_lines"
fi
