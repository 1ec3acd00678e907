#!/usr/bin/env bash
# Installs one set of pinned harness CLIs (Claude Code, Codex, Pi + a Node 22 for Pi) and ACP
# agents (OpenCode, Gemini CLI) from npm into a cache outside the clone, and prints the env lines that point
# the tests at them:
#
#   FORKHOST_CLAUDE_BIN=/abs/path   FORKHOST_CODEX_BIN=/abs/path   FORKHOST_PI_BIN=/abs/path
#   FORKHOST_OPENCODE_BIN=/abs/path   FORKHOST_GEMINI_BIN=/abs/path
#
# Usage:
#   bash scripts/install-harnesses.sh [--set oldest|newest]   # install if needed, print env lines
#   eval "$(bash scripts/install-harnesses.sh --set newest --print-env)"   # stdout: only env lines
#   bash scripts/install-harnesses.sh --set scratch --claude V --codex V --pi V   # any versions
#
# Sets (scripts/harness-versions.env): `oldest` (default) is the oldest supported versions,
# `newest` the newest verified ones; `scratch` takes every version from the flags (for
# scripts/newest-harnesses.sh). --claude/--codex/--pi also override one version of a named set.
#
# Cache: ${FORKHOST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/forkhost}/harnesses/
#   pkgs/<package>-<version>-<hash>/   one npm install per package version, shared by the sets
#   <set>-<hash>/bin, <set>-<hash>/env the set's binaries and env lines
# (<hash>: of the versions, this script and the machine's os/arch). A finished install is
# marked by a `.complete` file; a repeat run only prints. Safe to run concurrently (flock).
set -euo pipefail

set_name=oldest
print_env_only=0
claude_override="" codex_override="" pi_override=""
while (($#)); do
  case "$1" in
    --print-env) print_env_only=1 ;;
    --set)
      set_name="${2:?--set needs oldest, newest or scratch}"
      shift
      ;;
    --set=*) set_name="${1#--set=}" ;;
    --claude | --codex | --pi)
      [[ -n "${2:-}" ]] || { echo "install-harnesses.sh: $1 needs a version" >&2; exit 2; }
      printf -v "${1#--}_override" '%s' "$2"
      shift
      ;;
    -h | --help)
      sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "install-harnesses.sh: unknown argument: $1" >&2
      exit 2
      ;;
  esac
  shift
done

log() { echo "install-harnesses: $*" >&2; }

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
versions_file="$script_dir/harness-versions.env"
# shellcheck source=harness-versions.env
source "$versions_file"
: "${PI_NODE_VERSION:?}"
case "$set_name" in
  oldest)
    claude_version="$CLAUDE_CODE_VERSION" codex_version="$CODEX_VERSION"
    pi_version="$PI_CODING_AGENT_VERSION" opencode_version="$OPENCODE_VERSION"
    gemini_version="$GEMINI_CLI_VERSION"
    ;;
  newest)
    claude_version="$CLAUDE_CODE_NEWEST_VERSION" codex_version="$CODEX_NEWEST_VERSION"
    pi_version="$PI_CODING_AGENT_NEWEST_VERSION" opencode_version="$OPENCODE_NEWEST_VERSION"
    gemini_version="$GEMINI_CLI_NEWEST_VERSION"
    ;;
  # The ACP agents keep their pin in a scratch set (scripts/newest-harnesses.sh tries the
  # native three).
  scratch)
    claude_version="" codex_version="" pi_version="" opencode_version="$OPENCODE_VERSION"
    gemini_version="$GEMINI_CLI_VERSION"
    ;;
  *)
    echo "install-harnesses.sh: unknown set $set_name (oldest, newest or scratch)" >&2
    exit 2
    ;;
esac
claude_version="${claude_override:-$claude_version}"
codex_version="${codex_override:-$codex_version}"
pi_version="${pi_override:-$pi_version}"
[[ -n "$claude_version" && -n "$codex_version" && -n "$pi_version" ]] || {
  echo "install-harnesses.sh: set $set_name needs --claude, --codex and --pi versions" >&2
  exit 2
}

command -v npm >/dev/null || {
  echo "install-harnesses.sh: npm is required (apt-get install nodejs npm)" >&2
  exit 1
}

platform="$(uname -s)-$(uname -m)"
# The install layout depends on this script too: hash it, so a changed layout reinstalls.
layout_hash="$(cat "$0" <(echo "$platform") | sha256sum | cut -c1-12)"
set_hash="$(printf '%s\n' "$layout_hash" "$claude_version" "$codex_version" "$pi_version" \
  "$PI_NODE_VERSION" "$opencode_version" "$gemini_version" | sha256sum | cut -c1-16)"
cache_root="${FORKHOST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/forkhost}/harnesses"
dest="$cache_root/$set_name-$set_hash"
mkdir -p "$cache_root/pkgs"

# One installer at a time per cache (a second caller waits, then finds `.complete`).
exec 9>"$cache_root/.lock"
flock 9

pkg_dir() { # <slug> <version>
  echo "$cache_root/pkgs/$1-$2-$layout_hash"
}

# Installs one npm package version into its own folder, unless it is there already.
npm_install() { # <slug> <package@version>
  local dir
  dir="$(pkg_dir "$1" "${2##*@}")"
  [[ -f "$dir/.complete" ]] && return 0
  local tmp="$dir.tmp-$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  # A package.json of its own keeps npm from walking up into some other project.
  echo '{"name":"forkhost-harness","private":true}' >"$tmp/package.json"
  (cd "$tmp" && npm install --no-audit --no-fund --no-package-lock --loglevel=error \
    --no-save "$2" >&2) || {
    rm -rf "$tmp"
    return 1
  }
  touch "$tmp/.complete"
  rm -rf "$dir"
  mv "$tmp" "$dir"
}

# Picks the first existing executable among the arguments (globs allowed).
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

claude_pkg="$(pkg_dir claude-code "$claude_version")"
codex_pkg="$(pkg_dir codex "$codex_version")"
pi_pkg_dir="$(pkg_dir pi-coding-agent "$pi_version")"
node_pkg="$(pkg_dir node "$PI_NODE_VERSION")"
opencode_pkg="$(pkg_dir opencode "$opencode_version")"
gemini_pkg="$(pkg_dir gemini-cli "$gemini_version")"

if [ ! -f "$dest/.complete" ]; then
  start=$(date +%s)
  log "set $set_name: claude-code $claude_version, codex $codex_version, pi $pi_version, node $PI_NODE_VERSION, opencode $opencode_version, gemini-cli $gemini_version"

  # The installs are independent and mostly network-bound: run them side by side.
  npm_install claude-code "@anthropic-ai/claude-code@$claude_version" &
  p1=$!
  npm_install codex "@openai/codex@$codex_version" &
  p2=$!
  npm_install pi-coding-agent "@earendil-works/pi-coding-agent@$pi_version" &
  p3=$!
  npm_install node "node@$PI_NODE_VERSION" &
  p4=$!
  npm_install opencode "opencode-ai@$opencode_version" &
  p5=$!
  npm_install gemini-cli "@google/gemini-cli@$gemini_version" &
  p6=$!
  fail=0
  for p in $p1 $p2 $p3 $p4 $p5 $p6; do wait "$p" || fail=1; done
  if [ "$fail" != 0 ]; then
    echo "install-harnesses.sh: an npm install failed (see above)" >&2
    exit 1
  fi

  tmp="$dest.tmp-$$"
  rm -rf "$tmp"
  mkdir -p "$tmp/bin"
  # Claude Code: the npm wrapper ships the Bun-compiled native binary as a per-platform
  # optional dependency; spawn it directly (no node in between).
  claude_native="$(first_file "$claude_pkg"/node_modules/@anthropic-ai/claude-code-*/claude \
    "$claude_pkg"/node_modules/@anthropic-ai/claude-code/bin/claude.exe \
    "$claude_pkg"/node_modules/.bin/claude)" || {
    echo "install-harnesses.sh: no claude binary found in $claude_pkg" >&2
    exit 1
  }
  ln -s "$claude_native" "$tmp/bin/claude"

  # Codex: a static native binary under vendor/<triple>/bin (it finds its rg and bwrap beside
  # itself); the npm launcher bin/codex.js only execs it, so spawn it directly.
  codex_native="$(first_file "$codex_pkg"/node_modules/@openai/codex-*/vendor/*/bin/codex \
    "$codex_pkg"/node_modules/@openai/codex/vendor/*/bin/codex)" || {
    echo "install-harnesses.sh: no codex binary found in $codex_pkg" >&2
    exit 1
  }
  ln -s "$codex_native" "$tmp/bin/codex"

  node_bin="$(first_file "$node_pkg"/node_modules/node/bin/node \
    "$node_pkg"/node_modules/node-*/bin/node)" || {
    echo "install-harnesses.sh: no node binary in the node@$PI_NODE_VERSION package" >&2
    exit 1
  }
  ln -s "$node_bin" "$tmp/bin/node"

  # OpenCode: a Bun-compiled native binary in a per-platform optional dependency
  # (opencode-<os>-<arch>[-baseline]); the npm launcher only execs it.
  opencode_native="$(first_file "$opencode_pkg"/node_modules/opencode-*/bin/opencode)" || {
    echo "install-harnesses.sh: no opencode binary found in $opencode_pkg" >&2
    exit 1
  }
  ln -s "$opencode_native" "$tmp/bin/opencode"
  [ -f "$gemini_pkg/node_modules/@google/gemini-cli/package.json" ] || {
    echo "install-harnesses.sh: gemini-cli package missing in $gemini_pkg" >&2
    exit 1
  }
  [ -f "$pi_pkg_dir/node_modules/@earendil-works/pi-coding-agent/package.json" ] || {
    echo "install-harnesses.sh: pi package missing in $pi_pkg_dir" >&2
    exit 1
  }
  rm -rf "$dest"
  mv "$tmp" "$dest"
  log "set $set_name installed in $(($(date +%s) - start)) s"
else
  log "set $set_name already installed: $dest"
fi

# The Pi and Gemini CLI launchers are (re)written on every run: they are tiny and hold absolute
# paths.
claude_bin="$(readlink -f "$dest/bin/claude")"
codex_bin="$(readlink -f "$dest/bin/codex")"
opencode_bin="$(readlink -f "$dest/bin/opencode")"
node_bin="$(readlink -f "$dest/bin/node")"

# Writes $dest/bin/<name>: a launcher that runs an npm package's JS entry (its bin <name>, else
# its first bin) on the pinned Node, handing on every argument.
node_launcher() { # <name> <package folder> <label for the comment line, e.g. "pi 1.6.0">
  local main
  main="$(cd "$2" && "$node_bin" -e '
  const p = require("./package.json");
  const b = typeof p.bin === "string" ? p.bin : (p.bin[process.argv[1]] || Object.values(p.bin)[0]);
  process.stdout.write(require("path").resolve(b));' "$1")"
  cat >"$dest/bin/$1.tmp" <<EOF
#!/bin/sh
# Generated by install-harnesses.sh: $3 on node $PI_NODE_VERSION.
exec "$node_bin" "$main" "\$@"
EOF
  chmod +x "$dest/bin/$1.tmp"
  mv -f "$dest/bin/$1.tmp" "$dest/bin/$1"
}
node_launcher pi "$pi_pkg_dir/node_modules/@earendil-works/pi-coding-agent" "pi $pi_version"
# Gemini CLI is a Node program too (a bundle); it runs on the same pinned Node.
node_launcher gemini "$gemini_pkg/node_modules/@google/gemini-cli" "gemini-cli $gemini_version"
touch "$dest/.complete"

env_lines="FORKHOST_CLAUDE_BIN=$claude_bin
FORKHOST_CODEX_BIN=$codex_bin
FORKHOST_PI_BIN=$dest/bin/pi
FORKHOST_OPENCODE_BIN=$opencode_bin
FORKHOST_GEMINI_BIN=$dest/bin/gemini"
printf '%s\n' "$env_lines" >"$dest/env"

# OpenCode makes its data, cache and log folders at any start, `--version` too: asked in a
# throwaway home, never the user's.
opencode_version() {
  local home
  home="$(mktemp -d)"
  HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" \
    XDG_CACHE_HOME="$home/.cache" XDG_STATE_HOME="$home/.local/state" \
    "$opencode_bin" --version 2>/dev/null | head -1
  rm -rf "$home"
}

# Gemini CLI too may write its settings folder at start: asked in a throwaway home.
gemini_version() {
  local home
  home="$(mktemp -d)"
  HOME="$home" "$dest/bin/gemini" --version 2>/dev/null | head -1
  rm -rf "$home"
}

if [ "$print_env_only" = 1 ]; then
  # `export` so that `eval` hands them on to child processes (cargo test).
  printf 'export FORKHOST_CLAUDE_BIN=%q\nexport FORKHOST_CODEX_BIN=%q\nexport FORKHOST_PI_BIN=%q\nexport FORKHOST_OPENCODE_BIN=%q\nexport FORKHOST_GEMINI_BIN=%q\n' \
    "$claude_bin" "$codex_bin" "$dest/bin/pi" "$opencode_bin" "$dest/bin/gemini"
else
  log "versions: $("$claude_bin" --version 2>/dev/null | head -1) | $("$codex_bin" --version 2>/dev/null | head -1) | pi $("$dest/bin/pi" --version 2>/dev/null | head -1) | opencode $(opencode_version) | gemini $(gemini_version)"
  log "env lines (also in $dest/env; source them with: eval \"\$(bash $0 --set $set_name --print-env)\"):"
  printf '%s\n' "$env_lines"
fi
