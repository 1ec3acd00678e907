# Sourced by the other scripts: where caches live (outside the clone, so a fresh clone reuses
# them), and the PATH additions for tools the setup installs.
forkhost_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export FORKHOST_CACHE="${FORKHOST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/forkhost}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$FORKHOST_CACHE/target}"
# Tools the setup installs with cargo (tauri-driver) and npm (a newer Node when needed).
export PATH="$FORKHOST_CACHE/tools/bin:$FORKHOST_CACHE/node/node_modules/node/bin:$HOME/.cargo/bin:$PATH"

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
