# Sourced by the other scripts: where caches live (outside the clone, so a fresh clone reuses
# them), and the PATH additions for tools the setup installs.
forkhost_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export FORKHOST_CACHE="${FORKHOST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/forkhost}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$FORKHOST_CACHE/target}"
# Tools the setup installs with cargo (tauri-driver) and npm (a newer Node when needed).
export PATH="$FORKHOST_CACHE/tools/bin:$FORKHOST_CACHE/node/node_modules/node/bin:$HOME/.cargo/bin:$PATH"

step() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }
