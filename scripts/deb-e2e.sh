#!/usr/bin/env bash
# End-to-end test of the Debian package: builds the .deb and .rpm (scripts/package.sh), then
# runs tests/tests/pkg/deb.rs (the `pkg` test binary), which installs the .deb into THIS system with apt-get (sudo
# when not root), starts the INSTALLED app (/usr/bin/forkhost-app) under a virtual display
# (Xvfb, unless $DISPLAY is set) over WebDriver (tauri-driver → WebKitWebDriver) and checks its
# shell, runs the installed `forkhost --version`, checks the desktop entry and icons, removes
# the package and checks that its files are gone. The .rpm's file list is checked too when the
# `rpm` tool is installed (it is not needed to build the .rpm).
#
# The in-app updater is tested on the way: two packages are built. The installed one (the
# crate's version) has its updater pointed at a loopback update server the test runs, and a
# throwaway signing key's public half; the other is the next patch version, signed with that key
# (`bundle.createUpdaterArtifacts`, as the release workflow signs). The installed app finds the
# update at start, downloads it (progress bar), installs it through `sudo dpkg -i` (pkexec when
# there is one) and restarts into it. The key, the port and both packages are kept in
# $CARGO_TARGET_DIR/deb-e2e/ so re-runs reuse the builds. The packages are release builds, or
# debug ones with FORKHOST_PACKAGE_PROFILE=debug (scripts/package.sh; scripts/test.sh does so:
# they then share every compiled dependency with the tests' own debug build).
#
# Needs what scripts/app-e2e.sh needs (the Debian packages libwebkit2gtk-4.1-dev,
# webkit2gtk-driver, xvfb, xauth; tauri-driver on PATH), plus apt-get and dpkg. Honours
# CARGO_TARGET_DIR: the build is reused between runs.
# Screenshots and logs land in test-artifacts/. Exit code = the test's.
#
#   scripts/deb-e2e.sh              build as needed, then test
#   scripts/deb-e2e.sh --build-only build the packages and the test; run nothing
#   SKIP_BUILD=1 scripts/deb-e2e.sh test the packages built by the last run
set -euo pipefail
# WebKitWebDriver's screenshots hang when WebKit renders without compositing, which the app
# picks by itself on machines without a GPU render node (like CI's): keep compositing on here.
export WEBKIT_DISABLE_COMPOSITING_MODE=0
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$forkhost_root"

target_dir="$CARGO_TARGET_DIR"
case "$target_dir" in /*) ;; *) target_dir="$forkhost_root/$target_dir" ;; esac
export CARGO_TARGET_DIR="$target_dir"
artifacts="$forkhost_root/test-artifacts"
mkdir -p "$artifacts"
package=forkhost
build_only=0
[[ "${1:-}" == --build-only ]] && build_only=1

log() { printf '[deb-e2e] %s\n' "$*" >&2; }

sudo=""
[[ "$(id -u)" -ne 0 ]] && sudo="sudo -n"

for tool in tauri-driver WebKitWebDriver apt-get dpkg dpkg-deb; do
  command -v "$tool" >/dev/null || { log "missing $tool (see the header of this script)"; exit 2; }
done

source scripts/webdriver.sh

# The update round trip's fixtures (see the header).
update_dir="$target_dir/deb-e2e"
mkdir -p "$update_dir"
key="$update_dir/updater.key"
if [[ ! -s "$key" || ! -s "$key.pub" ]]; then
  rm -f "$key" "$key.pub"
  npx --no-install tauri signer generate --ci -p "" -w "$key" >/dev/null
fi
[[ -s "$update_dir/port" ]] || free_port >"$update_dir/port"
update_port="$(cat "$update_dir/port")"
version="$(sed -n 's/^version = "\([0-9]*\.[0-9]*\.[0-9]*\)"$/\1/p' Cargo.toml | head -n1)"
[[ -n "$version" ]] || { log "no plain x.y.z version in Cargo.toml"; exit 2; }
next_version="${version%.*}.$((${version##*.} + 1))"
python3 - "$update_dir" "$update_port" "$next_version" "$(cat "$key.pub")" <<'PY'
import json, sys
folder, port, next_version, pubkey = sys.argv[1:]
updater = {
    "endpoints": [f"http://127.0.0.1:{port}/latest.json"],
    "pubkey": pubkey,
    # Loopback only, in a test package: shipped configs use https (checked by a unit test).
    "dangerousInsecureTransportProtocol": True,
}
old = {"plugins": {"updater": updater}}
new = {"version": next_version, "bundle": {"createUpdaterArtifacts": True}, "plugins": {"updater": updater}}
for name, config in (("old", old), ("new", new)):
    with open(f"{folder}/{name}.json", "w") as f:
        json.dump(config, f, indent=2)
PY

# What the two packages are built from: every tracked or new file the app, the CLI and the UI
# are made of, the test's updater config and key, and the toolchain. When it matches the last
# build's, both packages are current and are not built again (each is a build of the app: the
# two versions differ, so one always rebuilds the other's app crate). Of `.cargo/` only its
# config builds anything (the mutation baseline moving must not rebuild two apps).
# Without git: always build.
package_inputs() {
  git rev-parse --git-dir >/dev/null 2>&1 || return 1
  {
    git ls-files -z -co --exclude-standard -- Cargo.toml Cargo.lock .cargo/config.toml crates src-tauri ui \
      icons package.json package-lock.json scripts/package.sh |
      xargs -0 sha256sum 2>/dev/null
    cat "$update_dir/old.json" "$update_dir/new.json" "$key.pub"
    rustc -V
    echo "${FORKHOST_PACKAGE_PROFILE:-release}"
  } | sha256sum | cut -d' ' -f1
}
inputs="$(package_inputs || true)"
if [[ -z "${SKIP_BUILD:-}" && -n "$inputs" && "$(cat "$update_dir/inputs" 2>/dev/null)" == "$inputs" &&
  -s "$update_dir/installed.deb" && -s "$update_dir/update.deb" && -s "$update_dir/update.deb.sig" ]]; then
  log "packages current (built from these sources before): not built again"
  SKIP_BUILD=1
fi

if [[ -z "${SKIP_BUILD:-}" ]]; then
  rm -f "$update_dir/inputs"
  log "building the installed package ($version, ${FORKHOST_PACKAGE_PROFILE:-release}, updater on 127.0.0.1:$update_port)"
  built="$(FORKHOST_PACKAGE_CONFIG="$update_dir/old.json" bash scripts/package.sh deb,rpm)"
  # By version, not by order: a bundle folder can hold the other version's package too (from
  # the update's build, or a build that was stopped half-way after it).
  deb="$(grep "_${version}_[^/]*\.deb\$" <<<"$built" | tail -n1 || true)"
  rpm="$(grep -- "-${version}-[^/]*\.rpm\$" <<<"$built" | tail -n1 || true)"
  [[ -n "$deb" && "$(dpkg-deb -f "$deb" Version)" == "$version" ]] ||
    { log "the build made no $version .deb (it listed: $built)"; exit 1; }
  cp "$deb" "$update_dir/installed.deb"
  [[ -n "$rpm" ]] && cp "$rpm" "$update_dir/installed.rpm"
  log "building the update ($next_version, signed)"
  built="$(TAURI_SIGNING_PRIVATE_KEY="$(cat "$key")" TAURI_SIGNING_PRIVATE_KEY_PASSWORD="" \
    FORKHOST_PACKAGE_CONFIG="$update_dir/new.json" bash scripts/package.sh deb)"
  new_deb="$(grep "_${next_version}_[^/]*\.deb\$" <<<"$built" | tail -n1 || true)"
  [[ -n "$new_deb" && "$(dpkg-deb -f "$new_deb" Version)" == "$next_version" ]] ||
    { log "the update's build made no $next_version .deb (it listed: $built)"; exit 1; }
  [[ -s "$new_deb.sig" ]] || { log "the update build made no signature ($new_deb.sig)"; exit 1; }
  cp "$new_deb" "$update_dir/update.deb"
  cp "$new_deb.sig" "$update_dir/update.deb.sig"
  [[ -n "$inputs" ]] && echo "$inputs" >"$update_dir/inputs"
fi
deb="$update_dir/installed.deb"
rpm="$update_dir/installed.rpm"
[[ -n "$deb" && -f "$deb" ]] || { log "no .deb at $deb (the build's copy)"; exit 2; }
log "deb: $deb ($(du -h "$deb" | cut -f1))"
dpkg-deb -c "$deb" >"$artifacts/deb-contents.txt"
dpkg-deb -I "$deb" >"$artifacts/deb-info.txt"

if [[ -n "$rpm" && -f "$rpm" ]]; then
  log "rpm: $rpm ($(du -h "$rpm" | cut -f1))"
  if command -v rpm >/dev/null; then
    rpm -qpl "$rpm" >"$artifacts/rpm-contents.txt" 2>/dev/null
    rpm -qpi "$rpm" >"$artifacts/rpm-info.txt" 2>/dev/null
    for file in /usr/bin/forkhost-app /usr/bin/forkhost /usr/share/applications/Forkhost.desktop; do
      grep -qx "$file" "$artifacts/rpm-contents.txt" || { log "the rpm lacks $file"; exit 1; }
    done
    log "rpm holds the app, the CLI and the desktop entry"
  else
    log "rpm tool not installed: the .rpm's contents are not checked"
  fi
fi

log "building the test"
cargo test -p forkhost-tests --test pkg --no-run
((build_only)) && exit 0

# Xvfb and tauri-driver are started here and stopped on exit; the package is removed on exit if
# the test left it installed.
cleanup() {
  webdriver_stop
  if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    log "removing the $package package left installed"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q "$package" >&2 || true
  fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
webdriver_start deb-

export FORKHOST_DEB="$deb"
if [[ -s "$update_dir/update.deb" && -s "$update_dir/update.deb.sig" ]]; then
  export FORKHOST_UPDATE_DEB="$update_dir/update.deb"
  export FORKHOST_UPDATE_VERSION="$next_version"
  export FORKHOST_UPDATE_PORT="$update_port"
fi
log "running the pkg test against $FORKHOST_DEB"
set +e
cargo test -p forkhost-tests --test pkg -- --nocapture --test-threads=1
status=$?
set -e
log "done (exit $status); artifacts in $artifacts"
exit "$status"
