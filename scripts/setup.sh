#!/usr/bin/env bash
# graphpat developer setup.
#
#   bash scripts/setup.sh deps   # install the Debian packages graphpat needs
#   bash scripts/setup.sh demo   # deps + Release build + run build/examples/graphpat_demo
#   bash scripts/setup.sh test   # deps + build with tests + ctest
#
# env: BUILD_DIR  build directory, relative to the repo root or absolute (default: build)
#      JOBS       parallel build jobs (default: nproc)
#      BUILD_TYPE CMake build type (default: Release)
set -euo pipefail

repo_root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd -- "$repo_root"

BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
BUILD_TYPE=${BUILD_TYPE:-Release}

# Debian 12 (bookworm) package names.
APT_PACKAGES=(
  cmake
  g++
  make
  libabsl-dev
  libfmt-dev
  nlohmann-json3-dev
  catch2
  libcli11-dev
  libbenchmark-dev
  graphviz
  python3
)

log() { printf '[setup] %s\n' "$*" >&2; }

is_installed() {
  [[ $(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null || true) == installed ]]
}

install_deps() {
  local missing=() pkg
  if command -v dpkg-query >/dev/null 2>&1; then
    for pkg in "${APT_PACKAGES[@]}"; do
      is_installed "$pkg" || missing+=("$pkg")
    done
  else
    missing=("${APT_PACKAGES[@]}")
  fi
  if [[ ${#missing[@]} -eq 0 ]]; then
    log "all packages already installed; skipping apt-get"
    return 0
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    log "apt-get not found; please install: ${missing[*]}"
    return 1
  fi

  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      log "not root and sudo not available; please install: ${missing[*]}"
      return 1
    fi
  fi

  log "installing: ${missing[*]}"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
}

configure() {
  log "configuring $BUILD_DIR ($BUILD_TYPE)"
  cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="$BUILD_TYPE" "$@"
}

cmd_demo() {
  install_deps
  configure
  cmake --build "$BUILD_DIR" --target graphpat_demo -j "$JOBS"
  log "running $BUILD_DIR/examples/graphpat_demo"
  "$BUILD_DIR/examples/graphpat_demo"
}

cmd_test() {
  install_deps
  configure -DGRAPHPAT_BUILD_TESTS=ON
  cmake --build "$BUILD_DIR" -j "$JOBS"
  ctest --test-dir "$BUILD_DIR" --output-on-failure
}

usage() {
  # The comment block at the top of this file.
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}" >&2
}

case ${1:-} in
  deps) install_deps ;;
  demo) cmd_demo ;;
  test) cmd_test ;;
  -h|--help|help) usage ;;
  *) usage; exit 2 ;;
esac
