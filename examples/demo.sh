#!/usr/bin/env bash
# The origin case from the shell: TVM's MobileNetV2 (as its MXNet importer emits it, with a
# separate `%N.0` TupleGetItem per consumer of a batch_norm) partitioned with the batch-norm
# pattern. graphpat outlines all 53 batch norms; TVM's behaviour (--relay-compat) leaves the five
# with duplicated `%N.0` nodes behind. Ends with an SVG picture of the partitioned graph.
#
#   bash examples/demo.sh build/examples/graphpat build/demo
set -euo pipefail

graphpat=$1
out_dir=$2
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
model="$here/models/mobilenet_v2_mxnet_style.relay"   # params bound: constants fold into the picture
json_model="$here/models/mobilenet_v2_mxnet_style.unbound.json"
pattern="@$here/patterns/batch_norm.pat"
mkdir -p -- "$out_dir"

# Echoes a command as a reader would type it from the repository root, then runs it.
step() {
  local shown="graphpat ${*:2}"
  printf '\n$ %s\n' "${shown//$here\//examples/}"
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
