#!/usr/bin/env bash
# The Windows and macOS lab, part 1: type-checks the workspace, all targets, for
# x86_64-pc-windows-gnu and aarch64-apple-darwin on this Debian machine, warnings denied. For
# macOS the end-to-end test crate (forkhost-tests) is left out: it runs on Linux only (CI), is
# Unix code like Linux's, and its dependencies (axum, fantoccini, …) cost minutes of a cold
# check; its few macOS lines would only matter to someone running that suite on a Mac. Every
# crate that ships (store, harness, worktree, core, CLI, app) and their own tests are checked.
#
# rustup cannot fetch another target's std here, so this uses Debian's Rust (rustc-web,
# cargo-web and rust-web-src: /usr/bin/rustc and /usr/bin/cargo with the std sources) and builds
# std itself (-Zbuild-std, RUSTC_BOOTSTRAP=1). C dependencies (bundled SQLite, ring, …) are
# compiled by MinGW for Windows and by zig (PyPI `ziglang`, in a venv) behind a small cc wrapper
# for macOS. Nothing is linked for macOS. Everything lives under $FORKHOST_CACHE/cross: the cargo
# home, the target folder (4–6 GB), the zig venv and its cache. The environment cargo sees is the
# same on every run (a changed CC_*/linker/RUSTFLAGS re-checks every crate), so a warm run takes
# seconds. What this does not prove, and what only a real Mac or Windows machine does:
# docs/windows-macos-lab.md.
#
#   scripts/cross-check.sh                      check both targets
#   scripts/cross-check.sh windows|macos        check one
#   scripts/cross-check.sh --setup              only install what is missing
#   scripts/cross-check.sh cargo TARGET ARGS…   run Debian's cargo for TARGET in the lab's
#                                               environment (scripts/wine-smoke.sh builds with it)
#
# The app's checks need the UI build (ui/dist); it is built first when missing.
#
# Where Debian's rustc-web is not to be had (not Debian, e.g. CI's Ubuntu runner, where rustup
# can download), rustup's toolchain with both targets added is used instead, without build-std:
# FORKHOST_CROSS_TOOLCHAIN=debian|rustup overrides the choice.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$forkhost_root"

lab="$FORKHOST_CACHE/cross"
ziglang_version="0.17.1"
windows_cc_packages=(gcc-mingw-w64-x86-64 python3-venv)
debian_rust_packages=(rustc-web cargo-web rust-web-src)
windows=x86_64-pc-windows-gnu
macos=aarch64-apple-darwin

log() { printf '[cross-check] %s\n' "$*" >&2; }
die() {
  log "FAILED: $*"
  exit 1
}


toolchain="${FORKHOST_CROSS_TOOLCHAIN:-}"
if [[ -z "$toolchain" ]]; then
  toolchain=rustup
  # shellcheck disable=SC1091
  [[ -r /etc/os-release ]] && (. /etc/os-release && [[ "${ID:-}" == debian ]]) && toolchain=debian
fi
case "$toolchain" in
  debian)
    wanted_packages=("${windows_cc_packages[@]}" "${debian_rust_packages[@]}")
    rust_bin=/usr/bin
    lab_path=/usr/bin:/bin
    build_std=("-Zbuild-std=std,panic_abort")
    bootstrap=(RUSTC_BOOTSTRAP=1)
    ;;
  rustup)
    wanted_packages=("${windows_cc_packages[@]}")
    rust_bin="$(rustc --print sysroot 2>/dev/null)/bin"
    lab_path="$rust_bin:/usr/bin:/bin"
    build_std=()
    bootstrap=()
    ;;
  *) die "FORKHOST_CROSS_TOOLCHAIN is '$toolchain': debian or rustup" ;;
esac

install_packages() {
  apt_install_missing "${wanted_packages[@]}"
  if [[ "$toolchain" == debian ]]; then
    [[ -x /usr/bin/cargo && -x /usr/bin/rustc ]] || die "Debian's cargo/rustc are not in /usr/bin after installing cargo-web/rustc-web"
    [[ -d "$(/usr/bin/rustc --print sysroot)/lib/rustlib/src/rust/library" ]] ||
      die "rust-web-src gave no std sources under $(/usr/bin/rustc --print sysroot)/lib/rustlib/src"
  else
    [[ -x "$rust_bin/cargo" ]] || die "no rustup toolchain (rustc --print sysroot gave $rust_bin)"
    rustup target add "$windows" "$macos" >&2 || die "rustup target add $windows $macos"
  fi
}

zig_venv="$lab/zig-venv"
zig_bin() {
  # The binary inside the package, not `python -m ziglang` (which breaks in a folder holding a
  # file named like a stdlib module); -I keeps the current folder off sys.path for this lookup.
  "$zig_venv/bin/python" -I -c 'import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))'
}

install_zig() {
  if [[ ! -x "$zig_venv/bin/python" ]] || ! "$zig_venv/bin/python" -I -c "import importlib.metadata as m, sys; sys.exit(m.version('ziglang') != '$ziglang_version')" 2>/dev/null; then
    step "zig: installing ziglang==$ziglang_version from PyPI into $zig_venv"
    rm -rf "$zig_venv"
    python3 -m venv "$zig_venv"
    "$zig_venv/bin/pip" install --quiet --disable-pip-version-check "ziglang==$ziglang_version" || {
      rm -rf "$zig_venv"
      die "pip install ziglang==$ziglang_version"
    }
  fi
  local zig
  zig="$(zig_bin)"
  [[ -x "$zig" ]] || die "no zig binary at $zig"
  mkdir -p "$lab/bin" "$lab/zig-cache"
  # cc-rs calls the C compiler as Apple's clang: drop the flags zig does not take (-arch X,
  # --target=…, -mmacosx-version-min=…, -isysroot X) and give it zig's own target instead.
  # Objective-C sources (mac-notification-sys's notify.m, behind the notification plugin) need
  # Apple's SDK (Cocoa.h), which no Linux machine has: they become empty objects. Nothing is
  # linked for macOS here, so the type-check of the Rust around them stands; that the
  # notification itself works only a real Mac shows (docs/windows-macos-lab.md).
  cat >"$lab/bin/aarch64-macos-cc" <<EOF
#!/usr/bin/env bash
# Written by scripts/cross-check.sh: cc for aarch64-apple-darwin through zig.
export ZIG_GLOBAL_CACHE_DIR="$lab/zig-cache" ZIG_LOCAL_CACHE_DIR="$lab/zig-cache"
args=()
skip=0
objc=0
for arg in "\$@"; do
  if ((skip)); then skip=0; continue; fi
  case "\$arg" in
    -arch | -isysroot) skip=1 ;;
    --target=* | -mmacosx-version-min=* | -isysroot*) ;;
    *.m) objc=1 ;;
    *) args+=("\$arg") ;;
  esac
done
if ((objc)); then
  exec "$zig" cc -target aarch64-macos -x c /dev/null "\${args[@]}"
fi
exec "$zig" cc -target aarch64-macos "\${args[@]}"
EOF
  cat >"$lab/bin/aarch64-macos-ar" <<EOF
#!/usr/bin/env bash
# Written by scripts/cross-check.sh: ar for aarch64-apple-darwin through zig.
export ZIG_GLOBAL_CACHE_DIR="$lab/zig-cache" ZIG_LOCAL_CACHE_DIR="$lab/zig-cache"
exec "$zig" ar "\$@"
EOF
  chmod +x "$lab/bin/aarch64-macos-cc" "$lab/bin/aarch64-macos-ar"
}

# Debian's (or rustup's) cargo for one target, in an environment that is the same on every run
# (env -i: nothing of the caller's RUSTFLAGS, CARGO_TARGET_DIR, rustup PATH or CC leaks in).
lab_cargo() {
  local target="$1"
  shift
  env -i \
    HOME="$HOME" \
    PATH="$lab_path" \
    LANG=C.UTF-8 \
    TERM="${TERM:-dumb}" \
    RUSTC="$rust_bin/rustc" \
    RUSTDOC="$rust_bin/rustdoc" \
    "${bootstrap[@]}" \
    RUSTFLAGS="-D warnings" \
    CARGO_HOME="$lab/cargo-home" \
    CARGO_TARGET_DIR="$lab/target" \
    CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc \
    CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc \
    AR_x86_64_pc_windows_gnu=x86_64-w64-mingw32-ar \
    CC_aarch64_apple_darwin="$lab/bin/aarch64-macos-cc" \
    AR_aarch64_apple_darwin="$lab/bin/aarch64-macos-ar" \
    "$rust_bin/cargo" "$@" "${build_std[@]}" --locked --target "$target"
}

ensure_ui_build() { ui_build; }

setup() {
  install_packages
  install_zig
  mkdir -p "$lab/cargo-home" "$lab/target"
}

failed=()
check() {
  local name="$1" target="$2" start
  shift 2
  step "type-check for $name ($target): cargo check --workspace $* --all-targets, warnings denied"
  start=$SECONDS
  if lab_cargo "$target" check --workspace "$@" --all-targets --keep-going; then
    log "$name ($target): clean in $((SECONDS - start)) s"
  else
    log "$name ($target): FAILED after $((SECONDS - start)) s (the errors are above)"
    failed+=("$name ($target)")
  fi
}

case "${1:-}" in
  --setup)
    setup
    ;;
  cargo)
    (($# >= 3)) || die "usage: scripts/cross-check.sh cargo TARGET ARGS…"
    target="$2"
    shift 2
    setup >&2
    lab_cargo "$target" "$@"
    ;;
  "" | windows | macos)
    setup
    ensure_ui_build
    case "${1:-}" in
      windows) check Windows "$windows" ;;
      macos) check macOS "$macos" --exclude forkhost-tests ;;
      *)
        check Windows "$windows"
        check macOS "$macos" --exclude forkhost-tests
        ;;
    esac
    ((${#failed[@]} == 0)) || die "cargo check (Debian's cargo, build-std) for: ${failed[*]}"
    ;;
  *) die "unknown argument '$1' (usage: scripts/cross-check.sh [windows|macos|--setup|cargo TARGET ARGS…])" ;;
esac
