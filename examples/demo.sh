#!/usr/bin/env bash
# The origin case from the shell: TVM's MobileNetV2 (as its MXNet importer emits it, with a
# separate `%N.0` TupleGetItem per consumer of a batch_norm) partitioned with the batch-norm
# pattern. graphpat outlines all 53 batch norms; TVM's behaviour (--relay-compat) leaves the five
# with duplicated `%N.0` nodes behind. Then the same on ONNX: the training export of
# torchvision's MobileNetV2 (every BatchNormalization with five outputs, the origin case's
# shape) partitioned, and the GELU and LayerNorm decompositions of an opset-13 BERT encoder
# fused into model-local functions. Ends with SVG pictures of the batch norms outlined.
#
#   bash examples/demo.sh build/examples/graphpat build/demo
set -euo pipefail

graphpat=$1
out_dir=$2
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
root=$(cd -- "$here/.." && pwd)
onnx_models="$root/tests/data/onnx"   # PyTorch exports, weights as absent external data or inside
model="$here/models/mobilenet_v2_mxnet_style.relay"   # params bound: constants fold into the picture
json_model="$here/models/mobilenet_v2_mxnet_style.unbound.json"
pattern="@$here/patterns/batch_norm.pat"
mkdir -p -- "$out_dir"

# Echoes a command as a reader would type it from the repository root, then runs it.
step() {
  local shown="graphpat ${*:2}"
  printf '\n$ %s\n' "${shown//$root\//}"
  "$@"
}

printf '$ graphpat stats examples/models/%s | grep -E "TupleGetItem|batch_norm"\n' "${model##*/}"
"$graphpat" stats "$model" | grep -E 'TupleGetItem|batch_norm'
printf '\n$ cat examples/patterns/batch_norm.pat\n'
cat "$here/patterns/batch_norm.pat"

step "$graphpat" partition "$model" --pattern "$pattern" --attr Composite=bn \
  -o "$out_dir/mobilenet_v2.partitioned.relay"
step "$graphpat" partition "$model" --pattern "$pattern" --attr Composite=bn --relay-compat \
  -o "$out_dir/mobilenet_v2.relay_compat.relay"
step "$graphpat" partition "$json_model" --pattern "$pattern" --attr Composite=bn \
  -o "$out_dir/mobilenet_v2.partitioned.json"
step "$graphpat" dot "$out_dir/mobilenet_v2.partitioned.relay" --partitioned \
  -o "$out_dir/mobilenet_v2.partitioned.svg"

# ONNX: the origin case's shape in a training export, then BERT's decompositions fused.
step "$graphpat" partition "$onnx_models/mobilenet_v2.train.external.onnx" \
  --pattern "@$here/patterns/onnx_batch_norm.pat" -o "$out_dir/mobilenet_v2.train.partitioned.onnx"
printf '\n$ cat examples/patterns/bert_fusions.table\n'
cat "$here/patterns/bert_fusions.table"
step "$graphpat" merge-composite "$onnx_models/bert_gelu_opset13.onnx" \
  --table "$here/patterns/bert_fusions.table" -o "$out_dir/bert_gelu_opset13.fused.onnx"
printf '\n$ graphpat stats %s | grep -E "functions|@"\n' "${out_dir#$root/}/bert_gelu_opset13.fused.onnx"
"$graphpat" stats "$out_dir/bert_gelu_opset13.fused.onnx" | grep -E 'functions|@'
step "$graphpat" dot "$onnx_models/mobilenet_v2.train.external.onnx" \
  --pattern "@$here/patterns/onnx_batch_norm.pat" --name BatchNormalization \
  -o "$out_dir/mobilenet_v2.train.batch_norms.svg"
