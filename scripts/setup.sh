#!/usr/bin/env bash
# Installs what building (and, with --tests, testing) Forkhost needs on Debian/Ubuntu, skipping
# whatever is already there: Debian packages, Rust, Node.js >= 20, npm dependencies, and for
# tests tauri-driver, cargo-mutants and the pinned harness CLIs. Uses sudo only when not root.
#
#   scripts/setup.sh           what the app needs
#   scripts/setup.sh --tests   and what the test suite needs
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$forkhost_root"

for_tests=0
[[ "${1:-}" == "--tests" ]] && for_tests=1


app_packages=(libwebkit2gtk-4.1-dev build-essential file libxdo-dev libssl-dev
  libayatana-appindicator3-dev librsvg2-dev pkg-config curl ca-certificates)
# openssh-server and openssh-client: the remote-host tests' real OpenSSH on loopback;
# iproute2: the network namespace whose link they drop (tests/src/netns.rs).
test_packages=(xvfb xauth webkit2gtk-driver imagemagick shellcheck sudo ripgrep openssh-server
  openssh-client iproute2)

wanted=("${app_packages[@]}")
((for_tests)) && wanted+=("${test_packages[@]}")
apt_install_missing "${wanted[@]}"

if ! command -v cargo >/dev/null; then
  step "rust: installing with rustup"
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal -c clippy -c rustfmt
fi

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if ! command -v npm >/dev/null; then
  step "node: installing Debian's nodejs and npm"
  apt_install_missing nodejs npm
fi
if (($(node_major) < 20)); then
  # Vite needs Node >= 20; the `node` npm package ships a binary, found through env.sh's PATH.
  step "node: installing Node 22 from npm into $FORKHOST_CACHE/node"
  mkdir -p "$FORKHOST_CACHE/node"
  npm install --prefix "$FORKHOST_CACHE/node" --no-audit --no-fund node@22
fi

if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  step "npm ci"
  npm ci --no-audit --no-fund
fi

if ((for_tests)); then
  if ! command -v tauri-driver >/dev/null; then
    step "cargo install tauri-driver"
    cargo install tauri-driver --locked --root "$FORKHOST_CACHE/tools"
  fi
  # The mutation check in scripts/test.sh (scripts/mutants.sh); pinned, since a new version
  # can make new mutants and move the figures.
  cargo_mutants_version=27.1.0
  if [[ "$(cargo mutants --version 2>/dev/null)" != "cargo-mutants $cargo_mutants_version" ]]; then
    step "cargo install cargo-mutants $cargo_mutants_version"
    cargo install --locked "cargo-mutants@$cargo_mutants_version" --root "$FORKHOST_CACHE/tools"
  fi
  step "harness CLIs"
  bash scripts/install-harnesses.sh >/dev/null
  # The remote-host tests log in over ssh as a second local user (tests/src/sshd.rs), never as
  # anyone real. `*` rather than useradd's `!`: sshd refuses a locked account without PAM.
  if ! getent passwd forkhost-remote >/dev/null; then
    step "test user forkhost-remote"
    sudo=""
    [[ "$(id -u)" -ne 0 ]] && sudo="sudo"
    $sudo useradd --system --create-home --home-dir /var/lib/forkhost-remote \
      --shell /bin/sh forkhost-remote
    $sudo usermod -p '*' forkhost-remote
  fi
fi
