#!/usr/bin/env bash
# Installs what is missing, builds the UI and the desktop app, and launches Forkhost.
# Extra arguments go to the app.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$forkhost_root"

bash scripts/setup.sh
step "building the UI"
npm run build --silent
step "building and launching Forkhost"
exec cargo run -p forkhost-app -- "$@"
