#!/usr/bin/env bash
# graphpat developer setup.
#
#   bash scripts/setup.sh deps   # install the Debian packages graphpat needs
#   bash scripts/setup.sh demo   # deps + Release build of the graphpat CLI + examples/demo.sh
#   bash scripts/setup.sh test   # deps + build with tests (and -D_GLIBCXX_ASSERTIONS) + ctest
#   bash scripts/setup.sh sanitize  # deps + clang ASan+UBSan build (in ASAN_BUILD_DIR)
#                                   # + ctest + each fuzzer ~15 s on its corpus
#
# env: BUILD_DIR  build directory, relative to the repo root or absolute (default: build)
#      ASAN_BUILD_DIR  the same for `sanitize` (default: build-asan)
#      JOBS       parallel build jobs (default: nproc)
#      BUILD_TYPE CMake build type (default: Release)
#      FUZZ_SECONDS most seconds each fuzzer runs in `sanitize` (default: 120; 0: none)
#      FUZZ_SEED  libFuzzer's seed in `sanitize` (default: 1)
set -euo pipefail

repo_root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd -- "$repo_root"

if [[ ${1:-} == sanitize ]]; then
  BUILD_DIR=${ASAN_BUILD_DIR:-build-asan}
else
  BUILD_DIR=${BUILD_DIR:-build}
fi
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
  libsimdjson-dev
  catch2
  libcli11-dev
  libbenchmark-dev
  graphviz
  python3
  python3-dev
  python3-numpy
  python3-pytest
  pybind11-dev
  clang
  libclang-rt-14-dev
  libonnx-dev
  libprotobuf-dev
  libonnx-testdata
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
  cmake --build "$BUILD_DIR" --target graphpat_cli -j "$JOBS"
  bash examples/demo.sh "$BUILD_DIR/examples/graphpat" "$BUILD_DIR/demo"
  log "pictures: $BUILD_DIR/demo/mobilenet_v2.partitioned.svg (Relay), $BUILD_DIR/demo/mobilenet_v2.train.batch_norms.svg (ONNX)"
}

cmd_test() {
  install_deps
  # -O2 rather than CMake's Release -O3: the suite checks behaviour, not speed (benchmarks/run.sh
  # builds its own -O3 tree). Measured on 2 cores, session 17: the build 9.5 min -> 6.5 min,
  # ctest unchanged (219 s).
  configure -DGRAPHPAT_BUILD_TESTS=ON -DGRAPHPAT_GLIBCXX_ASSERTIONS=ON \
    -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG"
  cmake --build "$BUILD_DIR" -j "$JOBS"
  # glibc's malloc asks for transparent huge pages (madvise) for what it maps: on this project's
  # VMs a page's first touch is slow (1 GiB memset: 3.0-3.8 s the first time, 0.06 s the
  # second; 0.10 s with huge pages), and the million-node tests fill gigabytes (session 30: the
  # 1e6-wide fan-out pipeline 87 s -> 61 s). It changes no result; a kernel without THP, or with
  # it off, ignores it. (The sanitizer build's allocator is ASan's own: not affected.)
  GLIBC_TUNABLES=glibc.malloc.hugetlb=1 ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS"
}

# The fuzzers and their committed corpora (tests/fuzz/corpus/<fuzzer>/), each with the number
# of inputs a CI run tries: about 15 s each in the sanitizer build (halved in sessions 16 and
# 17 to keep CI within 30 minutes; the millions of executions are runs of their own, recorded
# in tests/fuzz/README.md), two at a time on two cores. Rates measured: relay_text ~1k/s,
# relay_json ~4k/s, pattern_text ~20k/s, graph_passes ~60/s, pattern_graph ~20/s and
# writer_roundtrip ~100/s in an -O3 ASan build beside other work, counted at about half; onnx
# 53,524 in 60 s, ~880/s, in this sanitize build itself, seed 1, beside another fuzzer at load 6.
# pattern_text ran ~3.8k/s in session 25 (346,373 in 91 s at -O1 ASan), since each input also
# goes to parse_graph_pattern and parse_rewrite_rules: 60,000 runs.
FUZZERS=(fuzz_relay_text:12000 fuzz_relay_json:50000 fuzz_pattern_text:60000
         fuzz_graph_passes:750 fuzz_pattern_graph:200 fuzz_writer_roundtrip:1000
         fuzz_onnx:12000)

# Runs fuzzer $1 (name:runs) on a scratch copy of its corpus, at most FUZZ_SECONDS; fails on
# any crash, printing the broken invariant and the input (base64) so that a finding on a CI
# machine can be replayed elsewhere. The seed and the count are fixed, but two runs still try
# different inputs: hash seeds (abseil's) come from addresses, which differ between processes,
# and they steer which inputs reach new code. So a clean run here is evidence, not proof.
run_fuzzer() {
  local name=${1%%:*} runs=${1#*:} dict=() max_len=4096
  local work="$BUILD_DIR/fuzz-runs/$name"
  rm -rf -- "$work" && mkdir -p -- "$work/corpus"
  case $name in
    fuzz_relay_text) dict=(-dict=tests/fuzz/relay_text.dict) ;;
    fuzz_pattern_text) dict=(-dict=tests/fuzz/pattern_text.dict) ;;
    fuzz_onnx) dict=(-dict=tests/fuzz/onnx.dict) max_len=20480 ;;
  esac
  "$BUILD_DIR/tests/fuzz/$name" -runs="$runs" -max_total_time="${FUZZ_SECONDS:-120}" \
    -seed="${FUZZ_SEED:-1}" -max_len="$max_len" \
    -timeout=25 -rss_limit_mb=2048 -print_final_stats=1 "${dict[@]}" \
    -artifact_prefix="$work/" "$work/corpus" "tests/fuzz/corpus/$name" >"$work/log" 2>&1 || {
    log "$name failed (its log: $work/log):"
    grep -m1 -A2 -E '^fuzz invariant broken|runtime error|ERROR: [A-Za-z]+Sanitizer|ERROR: libFuzzer' \
      "$work/log" | cut -c1-400 >&2
    local input
    for input in "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-*; do
      [[ -e $input ]] && log "the input, $(basename "$input") in base64: $(base64 -w0 "$input")"
    done
    tail -n 8 "$work/log" >&2
    return 1
  }
  log "$name: $(grep -m1 '^stat::number_of_executed_units' "$work/log" || echo '?') executions"
}

cmd_sanitize() {
  install_deps
  export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # Line tables only (file:line in every report's stack, no variable info): 10% less compile
  # time than -g (one unit, session 16: 145 s -> 132 s).
  local flags="-O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
  # The test programs link graphpat::compiled (graphpat_link_entries), compiled once here too.
  BUILD_TYPE=Debug configure -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DGRAPHPAT_BUILD_TESTS=ON -DGRAPHPAT_BUILD_FUZZERS=ON -DGRAPHPAT_CONSUMER_TEST=OFF \
    -DGRAPHPAT_BUILD_EXAMPLES=OFF -DGRAPHPAT_BUILD_BENCHMARKS=OFF -DGRAPHPAT_BUILD_COMPILED=ON \
    -DGRAPHPAT_BUILD_PYTHON=OFF
  cmake --build "$BUILD_DIR" -j "$JOBS"
  # The 1e6-node pipelines peak near 6 GB each under ASan; two at a time fit in 16 GB. The tests
  # that compare a reader's times at n and 10 n (label `timing`) are left to the g++ suite: ASan's
  # shadow memory and allocator weigh differently at the two sizes, and they ran one at a time,
  # 83 s with the other core idle (CI, session 30); their inputs' code paths run here in the
  # other tests and the fuzzers.
  ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" -LE timing
  # Two fuzzers at a time (the machine has two cores); FUZZ_SECONDS=0 skips them.
  [[ ${FUZZ_SECONDS:-120} == 0 ]] && return 0
  local i pids=() failed=0
  for ((i = 0; i < ${#FUZZERS[@]}; i += 2)); do
    pids=()
    run_fuzzer "${FUZZERS[i]}" & pids+=($!)
    if ((i + 1 < ${#FUZZERS[@]})); then run_fuzzer "${FUZZERS[i + 1]}" & pids+=($!); fi
    for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
  done
  return "$failed"
}

usage() {
  # The comment block at the top of this file.
  awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}" >&2
}

case ${1:-} in
  deps) install_deps ;;
  demo) cmd_demo ;;
  test) cmd_test ;;
  sanitize) cmd_sanitize ;;
  -h|--help|help) usage ;;
  *) usage; exit 2 ;;
esac
