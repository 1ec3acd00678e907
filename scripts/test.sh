#!/usr/bin/env bash
# Installs what is missing, then runs the whole test suite: formatting and lints, the Rust tests
# (store, harness readers, core, CLI, fake model, the real harness CLIs), the UI's unit tests,
# and the desktop app end to end under a virtual display over WebDriver.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$forkhost_root"

bash scripts/setup.sh --tests
eval "$(bash scripts/install-harnesses.sh --print-env)"
export FORKHOST_CLAUDE_BIN FORKHOST_CODEX_BIN FORKHOST_PI_BIN

step "rustfmt"
cargo fmt --all -- --check

step "the UI build (embedded into the app)"
npm run build --silent

step "clippy"
cargo clippy --workspace --all-targets -- -D warnings

step "shared crates stay free of Tauri"
for crate in forkhost-store forkhost-harness forkhost-core forkhost-cli; do
  if cargo tree -p "$crate" -e normal --prefix none | grep -qE '^tauri( |-)'; then
    echo "$crate depends on tauri" >&2
    exit 1
  fi
done

step "Rust tests"
# The end-to-end tests run the `forkhost` binary itself; `cargo test` alone does not build it.
cargo build -p forkhost-cli
cargo test --workspace

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

step "desktop app end to end"
bash scripts/app-e2e.sh
step "packaging: workflow lint, then the .deb installed and run end to end"; bash scripts/lint-workflows.sh; bash scripts/deb-e2e.sh
