#!/usr/bin/python3
"""The horizontal-fusion models of test_onnx_horizontal_fusion.cpp (graphpat issue 25) and an
independent count of their parallel 1x1 convolutions, in plain Python over the protobuf.

Exported as the corpus's gen_onnx.py exports its models (Debian 12's python3-torch 1.13.1 and
python3-torchvision 0.14.1, torch.onnx.export's TorchScript exporter, eval mode so every batch
norm is folded into its convolution, opset 13, do_constant_folding, input "input" and output
"output", random weights of seed 0, checked with onnx.checker.check_model), then written with
every initializer moved to external data (location NAME.weights, a file deliberately not kept):
  googlenet.external.onnx     torchvision googlenet(weights=None, aux_logits=False, init_weights=True), 1x3x224x224
  inception_v3.external.onnx  torchvision inception_v3(weights=None, aux_logits=False, init_weights=True), 1x3x299x299

counts.json (beside this file), for each model: its nodes and initializers, and "horizontal":
  conv1x1          Conv nodes with kernel_shape [1, 1], strides [1, 1], pads [0, 0, 0, 0] and
                   group 1 (attributes left out take ONNX's defaults)
  forks            values that are input 0 of two or more such Convs
  forked_convs     the such Convs that read one of those values (the ones a fusion merges)
  fork_sizes       {number of such Convs reading the value: how many values}
  fused_convs_after  Conv nodes left once each fork's Convs are one Conv
Usage: gen_horizontal.py OUT_DIR (writes the models and counts.json there)"""
import collections, json, os, sys, warnings
import onnx
from onnx.external_data_helper import convert_model_to_external_data

MODELS = {"googlenet": 224, "inception_v3": 299}


def export(out, name, size):
    import torch, torchvision
    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None, aux_logits=False, init_weights=True)
    model.eval()
    path = os.path.join(out, f"{name}.onnx")
    torch.onnx.export(model, torch.randn(1, 3, size, size), path, opset_version=13,
                      input_names=["input"], output_names=["output"],
                      training=torch.onnx.TrainingMode.EVAL, do_constant_folding=True)
    m = onnx.load(path)
    onnx.checker.check_model(m)
    convert_model_to_external_data(m, all_tensors_to_one_file=True, location=f"{name}.weights",
                                   size_threshold=0)
    onnx.save_model(m, os.path.join(out, f"{name}.external.onnx"), save_as_external_data=False)
    weights = os.path.join(out, f"{name}.weights")
    if os.path.exists(weights): os.remove(weights)
    full = os.path.getsize(path)
    os.remove(path)  # the weights are tens of MB: only the structure is kept
    return full


def ints(node, name, default):
    for a in node.attribute:
        if a.name == name:
            return list(a.ints) if a.type == onnx.AttributeProto.INTS else [a.i]
    return default


def is_pointwise_conv(node):
    return (node.op_type == "Conv" and ints(node, "kernel_shape", None) == [1, 1]
            and ints(node, "strides", [1, 1]) == [1, 1]
            and ints(node, "pads", [0, 0, 0, 0]) == [0, 0, 0, 0]
            and ints(node, "group", [1]) == [1])


def horizontal(graph):
    readers = collections.defaultdict(int)
    for node in graph.node:
        if is_pointwise_conv(node): readers[node.input[0]] += 1
    forks = {value: n for value, n in readers.items() if n >= 2}
    convs = sum(1 for node in graph.node if node.op_type == "Conv")
    forked = sum(forks.values())
    return {"conv": convs, "conv1x1": sum(readers.values()), "forks": len(forks),
            "forked_convs": forked,
            "fork_sizes": {str(k): v for k, v in sorted(collections.Counter(forks.values()).items())},
            "fused_convs_after": convs - forked + len(forks)}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    warnings.filterwarnings("ignore")
    counts = {}
    for name, size in MODELS.items():
        full = export(out, name, size)
        file = f"{name}.external.onnx"
        m = onnx.load(os.path.join(out, file), load_external_data=False)
        counts[file] = {"nodes": len(m.graph.node), "initializers": len(m.graph.initializer),
                        "horizontal": horizontal(m.graph)}
        print(file, os.path.getsize(os.path.join(out, file)), "bytes,", full, "with weights,",
              counts[file])
    with open(os.path.join(out, "counts.json"), "w") as f:
        f.write(json.dumps(counts, indent=1) + "\n")


if __name__ == "__main__":
    main()
