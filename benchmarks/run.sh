#!/usr/bin/env bash
# The benchmark in one command: configures a Release build, builds graphpat_bench and runs it;
# the table goes to stdout, progress to stderr. Arguments are graphpat_bench's:
#
#   bash benchmarks/run.sh                          # everything, ~20 min, up to ~8 GB
#   bash benchmarks/run.sh --quick                  # 1e3 and 1e4 only, < 2 min
#   bash benchmarks/run.sh --out results.json       # also every figure as JSON
#   bash benchmarks/run.sh --workloads=dag --sizes=1e5 --passes=cse
#
# env: BUILD_DIR  build directory (default: build-release)
#      JOBS       parallel build jobs (default: nproc)
set -euo pipefail

repo_root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-build-release}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}
case $BUILD_DIR in /*) ;; *) BUILD_DIR="$repo_root/$BUILD_DIR" ;; esac

cmake -S "$repo_root" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DGRAPHPAT_BUILD_BENCHMARKS=ON >&2
cmake --build "$BUILD_DIR" --target graphpat_bench -j "$JOBS" >&2
exec "$BUILD_DIR/benchmarks/graphpat_bench" "$@"
