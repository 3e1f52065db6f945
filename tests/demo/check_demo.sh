#!/usr/bin/env bash
# Runs README's demo (examples/demo.sh) with a built CLI and checks what it must show: all 53
# batch norms of MobileNetV2 outlined with the 5 duplicated `%N.0` nodes merged first, TVM's
# 48 + 10 rejected under --relay-compat, and an SVG with one cluster per outlined batch norm;
# on ONNX, the 52 batch norms of MobileNetV2's training export outlined and drawn, and the 8
# LayerNorms and 4 GELUs of the opset-13 BERT encoder fused into two model-local functions.
#
#   bash tests/demo/check_demo.sh build/examples/graphpat /tmp/demo-out
set -euo pipefail

graphpat=$1
out_dir=$2
repo_root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)

output=$(bash "$repo_root/examples/demo.sh" "$graphpat" "$out_dir")
printf '%s\n' "$output"

fail() { printf 'check_demo: %s\n' "$*" >&2; exit 1; }
expect_count() {  # expect_count TEXT N: TEXT is a whole line of the output N times
  local got
  got=$(grep -cxF -- "$1" <<<"$output" || true)
  [[ $got == "$2" ]] || fail "expected the line '$1' $2 times, found it $got times"
}

expect_count '  nn.batch_norm: 53' 1
expect_count '53 groups partitioned' 2          # Relay text and TVM JSON
expect_count 'duplicates merged first: 5 nodes merged (TupleGetItem: 5)' 2
expect_count '48 groups partitioned' 1          # --relay-compat: TVM's result
expect_count '10 groups rejected' 1
expect_count '52 groups partitioned' 1          # ONNX
expect_count '12 composite functions made' 1
expect_count '  layer_norm: 8' 1
expect_count '  gelu: 4' 1
expect_count 'functions: 3 @main @graphpat.layer_norm @graphpat.gelu' 1

svg="$out_dir/mobilenet_v2.partitioned.svg"
[[ -s $svg ]] || fail "$svg is missing or empty"
clusters=$(grep -c 'class="cluster"' "$svg" || true)
[[ $clusters == 53 ]] || fail "$svg has $clusters clusters, expected 53"
onnx_svg="$out_dir/mobilenet_v2.train.batch_norms.svg"
onnx_clusters=$(grep -c 'class="cluster"' "$onnx_svg" || true)
[[ $onnx_clusters == 52 ]] || fail "$onnx_svg has $onnx_clusters clusters, expected 52"
echo "check_demo: ok"
