#!/usr/bin/env bash
# The benchmark in one command: configures a Release build, builds graphpat_bench and runs it;
# the table goes to stdout, progress to stderr. Arguments are graphpat_bench's:
#
#   bash benchmarks/run.sh                          # everything, ~25 CPU min, up to ~8 GB
#   bash benchmarks/run.sh --quick                  # 1e3 and 1e4 only, < 2 min
#   bash benchmarks/run.sh --out results.json       # also every figure as JSON
#   bash benchmarks/run.sh --workloads=dag --sizes=1e5 --passes=cse
#
# Repetitions are cut with size to keep the full run near 25 CPU minutes: three at 1e3-1e5 (after
# an untimed run); one at 1e6 and 1e7: a pass's first run is timed and is its only sample, a
# floor runs untimed then timed. So 1e6/1e7 figures have no spread, and a pass's include
# first-touch page faults for memory the process had not used before (smaller sizes exclude
# them). The text/JSON passes and partition, merge_composite and rewrite stop at 1e6 (memory,
# and minutes per run at 1e7; see passes.cpp): their scaling figure is 1e6 / 1e4.
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
