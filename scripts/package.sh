#!/usr/bin/env bash
# Builds the Linux packages of the desktop app here, offline: the .deb and the .rpm, each with
# the `forkhost` CLI at /usr/bin/forkhost beside the app (/usr/bin/forkhost-app).
#
#   1. the UI (ui/dist, embedded into the app)
#   2. the CLI in release mode (cargo build --release -p forkhost-cli), staged where
#      src-tauri/tauri.linux.conf.json's bundle.linux.{deb,rpm,appimage}.files expects it:
#      target/cli-bundle/forkhost at the repository root (paths in those `files` maps are
#      relative to src-tauri/, and CARGO_TARGET_DIR may be anywhere, hence the fixed spot)
#   3. npx tauri build --bundles deb,rpm (release build of the app + bundling)
#
# Honours CARGO_TARGET_DIR (default: scripts/env.sh's cache folder), so repeated runs reuse the
# release build. Progress goes to stderr; the paths of the packages built go to stdout, one a
# line, so `deb=$(scripts/package.sh | grep '\.deb$')` works.
#
#   scripts/package.sh              deb and rpm
#   scripts/package.sh deb          only the deb (any `--bundles` list: deb, rpm or deb,rpm)
#
#   FORKHOST_PACKAGE_CONFIG=extra.json scripts/package.sh deb
#                                   merges extra.json over the config (`tauri build --config`):
#                                   scripts/deb-e2e.sh builds its update-test packages this way
#   FORKHOST_PACKAGE_PROFILE=debug scripts/package.sh deb
#                                   the same packages from the debug profile (`tauri build
#                                   --debug`, the debug CLI), into $CARGO_TARGET_DIR/debug/bundle:
#                                   scripts/test.sh's packages, which then share every compiled
#                                   dependency with the tests' own build instead of compiling the
#                                   whole graph again optimized (a cold release build is most of
#                                   a cold run's CPU). Releases (docs/release.md) and
#                                   scripts/bench.sh build the release profile.
#
# AppImage is not built here: its tools are downloaded at bundle time (see docs/release.md).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$forkhost_root"

bundles="${1:-deb,rpm}"
case ",$bundles," in
  *,appimage,* | *,all,*)
    echo "package.sh builds deb and rpm only; AppImage needs network tools (docs/release.md)" >&2
    exit 2
    ;;
esac

target_dir="$CARGO_TARGET_DIR"
case "$target_dir" in /*) ;; *) target_dir="$forkhost_root/$target_dir" ;; esac
export CARGO_TARGET_DIR="$target_dir"

profile="${FORKHOST_PACKAGE_PROFILE:-release}"
case "$profile" in
  release) cargo_profile=(--release) tauri_profile=() ;;
  debug) cargo_profile=() tauri_profile=(--debug) ;;
  *) echo "FORKHOST_PACKAGE_PROFILE is release or debug, not '$profile'" >&2; exit 2 ;;
esac

started=$SECONDS
elapsed() { printf '%dm%02ds' $(((SECONDS - $1) / 60)) $(((SECONDS - $1) % 60)); }

if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
  step "npm ci"
  npm ci --no-audit --no-fund >&2
fi

t=$SECONDS
ui_build >&2
printf '[package] UI current after %s\n' "$(elapsed "$t")" >&2

t=$SECONDS
step "the forkhost CLI ($profile)"
cargo build "${cargo_profile[@]}" -p forkhost-cli >&2
cli="$target_dir/$profile/forkhost"
[[ -x "$cli" ]] || { echo "no CLI binary at $cli" >&2; exit 1; }
# The bundler follows the link and copies the binary itself into the package.
mkdir -p "$forkhost_root/target/cli-bundle"
ln -sfn "$cli" "$forkhost_root/target/cli-bundle/forkhost"
printf '[package] CLI built in %s: %s (%s)\n' "$(elapsed "$t")" "$cli" "$("$cli" --version)" >&2

t=$SECONDS
step "tauri build --bundles $bundles ($profile)"
bundle_dir="$target_dir/$profile/bundle"
stamp="$(mktemp)"
trap 'rm -f "$stamp"' EXIT
# `tauri build` would run build.beforeBuildCommand (the UI build) again: ui_build above has
# just made ui/dist current (hash-checked), and a rebuild rewrites its files, which makes the
# app crate (it embeds them) compile again in release even when nothing changed. The hook is
# dropped for this build (`null` removes a key when configs merge); then `cargo build
# --release` (or the debug build) of src-tauri, and the bundles. --ci: no prompts.
extra=(--config '{"build":{"beforeBuildCommand":null}}')
if [[ -n "${FORKHOST_PACKAGE_CONFIG:-}" ]]; then
  extra+=(--config "$FORKHOST_PACKAGE_CONFIG")
  printf '[package] with the extra config %s\n' "$FORKHOST_PACKAGE_CONFIG" >&2
fi
npx --no-install tauri build --ci "${tauri_profile[@]}" --bundles "$bundles" "${extra[@]}" >&2
printf '[package] app built and bundled in %s\n' "$(elapsed "$t")" >&2

built=()
for kind in ${bundles//,/ }; do
  while IFS= read -r file; do
    built+=("$file")
  done < <(find "$bundle_dir/$kind" -maxdepth 1 -type f -name "*.$kind" -newer "$stamp" | sort)
done
((${#built[@]})) || { echo "tauri build produced no package under $bundle_dir" >&2; exit 1; }
for file in "${built[@]}"; do
  printf '[package] %s  %s\n' "$(du -h "$file" | cut -f1)" "$file" >&2
done
printf '[package] done in %s\n' "$(elapsed "$started")" >&2
printf '%s\n' "${built[@]}"
