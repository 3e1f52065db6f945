#!/usr/bin/env bash
# Installs graphpat from an existing build tree into a scratch prefix, then
# configures, builds and runs tests/consumer against it via find_package(graphpat), and
# tests/consumer/onnx via find_package(graphpat COMPONENTS onnx); tests/consumer builds README's
# examples twice, header-only and against graphpat::compiled.
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
consumer_compiled="${consumer%/consumer}/consumer_compiled"
echo "== running $consumer_compiled (the same, against graphpat::compiled)"
"$consumer_compiled" "$source_dir/examples/models/mobilenet_v2_mxnet_style.relay"

onnx_build="$scratch_dir/build-onnx"
echo "== configuring the ONNX component's consumer in $onnx_build"
"$cmake_bin" -S "$source_dir/tests/consumer/onnx" -B "$onnx_build" \
  -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE="$config" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
"$cmake_bin" --build "$onnx_build" --config "$config"
onnx_consumer="$onnx_build/onnx_consumer"
if [[ ! -x $onnx_consumer && -x "$onnx_build/$config/onnx_consumer" ]]; then
  onnx_consumer="$onnx_build/$config/onnx_consumer"
fi
"$onnx_consumer"

echo "== find_package(graphpat COMPONENTS nosuch) must fail"
mkdir -p -- "$scratch_dir/unknown-component"
printf '%s\n' 'cmake_minimum_required(VERSION 3.20)' 'project(unknown_component NONE)' \
  'find_package(graphpat REQUIRED COMPONENTS nosuch)' >"$scratch_dir/unknown-component/CMakeLists.txt"
if "$cmake_bin" -S "$scratch_dir/unknown-component" -B "$scratch_dir/unknown-component/build" \
     -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >/dev/null 2>&1; then
  echo "error: find_package(graphpat COMPONENTS nosuch) succeeded" >&2
  exit 1
fi
echo "consumer_find_package: OK"
