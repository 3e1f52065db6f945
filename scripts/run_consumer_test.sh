#!/usr/bin/env bash
# Installs graphpat from an existing build tree into a scratch prefix, then
# configures, builds and runs tests/consumer against it via find_package(graphpat).
#
# usage: run_consumer_test.sh <build-dir> <source-dir> <scratch-dir>
# env:   CMAKE_COMMAND             cmake to use (default: cmake on PATH)
#        CXX                       compiler for the consumer (default: CMake's choice)
#        GRAPHPAT_CONSUMER_CONFIG  build configuration (default: Release)
set -euo pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: $0 <build-dir> <source-dir> <scratch-dir>" >&2
  exit 2
fi

build_dir=$1
source_dir=$2
scratch_dir=$3
cmake_bin=${CMAKE_COMMAND:-cmake}
config=${GRAPHPAT_CONSUMER_CONFIG:-Release}
[[ -n $config ]] || config=Release

prefix="$scratch_dir/prefix"
consumer_build="$scratch_dir/build"

rm -rf -- "$scratch_dir"
mkdir -p -- "$scratch_dir"

echo "== installing graphpat from $build_dir into $prefix"
"$cmake_bin" --install "$build_dir" --prefix "$prefix" --config "$config"

echo "== configuring consumer in $consumer_build"
# No user package registry; the check below makes sure that find_package(graphpat)
# picked the scratch prefix and not some other installed copy.
"$cmake_bin" -S "$source_dir/tests/consumer" -B "$consumer_build" \
  -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE="$config" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF

found_dir=$(sed -n 's/^graphpat_DIR:[A-Z]*=//p' "$consumer_build/CMakeCache.txt")
case $found_dir in
  "$prefix"/*) echo "== find_package(graphpat) used $found_dir" ;;
  *) echo "error: find_package(graphpat) found '$found_dir', not the scratch prefix $prefix" >&2
     exit 1 ;;
esac

echo "== building consumer"
"$cmake_bin" --build "$consumer_build" --config "$config"

consumer="$consumer_build/consumer"
if [[ ! -x $consumer && -x "$consumer_build/$config/consumer" ]]; then
  consumer="$consumer_build/$config/consumer"  # multi-config generators
fi

echo "== running $consumer (README's examples)"
"$consumer" "$source_dir/examples/models/mobilenet_v2_mxnet_style.relay"
echo "consumer_find_package: OK"
