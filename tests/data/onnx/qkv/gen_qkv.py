#!/usr/bin/python3
"""The QKV-fusion model of test_onnx_qkv_fusion.cpp (graphpat issue 25, "Relax-style QKV fusion
on a transformer block") and an independent count of its QKV triples, in plain Python over the
protobuf.

The corpus's bert packs Q, K and V into one in_proj, so this is a small GPT-2/BERT-style encoder
written here as plain nn.Module code, with three separate nn.Linear projections of one input per
layer: 2 layers, embed dim 64, 4 heads, MLP 256, post-norm (attention, output projection,
residual, LayerNorm, MLP of GELU, residual, LayerNorm), input 1x16x64.

Exported as the corpus's gen_onnx.py exports its models (Debian 12's python3-torch 1.13.1,
torch.onnx.export's TorchScript exporter, eval mode, opset 13, do_constant_folding, input
"input" and output "output", random weights of seed 0, checked with onnx.checker.check_model),
then written with every initializer moved to external data (location NAME.weights, a file
deliberately not kept):
  qkv_encoder.external.onnx
At opset 13 each nn.Linear of the 3-D input exports as MatMul(x, W^T as an [in, out]
initializer) then Add(bias initializer, x) (no Gemm: Gemm is only for 2-D input). The
exporter also writes six Identity nodes: at seed 0 every LayerNorm's weight (ones) and bias
(zeros) are equal, and it keeps one initializer of each, read through Identity by the others.

counts.json (beside this file), for the model: its nodes and initializers, and "qkv":
  matmul           MatMul nodes
  gemm             Gemm nodes
  weighted_matmul  MatMul nodes whose input 1 is an initializer (the nn.Linear projections)
  fork_sizes       {number of such MatMul (or Gemm) nodes reading a value: how many values},
                   for values read by two or more (a context of three patterns also matches
                   three of a value read by four, so none may be read by more than three)
  triples          values that are input 0 of exactly three such MatMul (or Gemm) nodes
  triple_widths    for each triple, the output widths of its three weights (shape[1])
  matmul_after     MatMul nodes left once each triple's three are one: matmul - 2 * triples
Usage: gen_qkv.py OUT_DIR (writes the model and counts.json there)"""
import collections, json, math, os, sys, warnings
import onnx
from onnx.external_data_helper import convert_model_to_external_data

EMBED, HEADS, MLP, LAYERS, SEQ = 64, 4, 256, 2, 16


def build():
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.q = nn.Linear(EMBED, EMBED)
            self.k = nn.Linear(EMBED, EMBED)
            self.v = nn.Linear(EMBED, EMBED)
            self.o = nn.Linear(EMBED, EMBED)
            self.ln1 = nn.LayerNorm(EMBED)
            self.fc1 = nn.Linear(EMBED, MLP)
            self.fc2 = nn.Linear(MLP, EMBED)
            self.ln2 = nn.LayerNorm(EMBED)

        def heads(self, t):  # [B, S, E] -> [B, H, S, E/H]
            b, s, _ = t.shape
            return t.reshape(b, s, HEADS, EMBED // HEADS).transpose(1, 2)

        def forward(self, x):
            q = self.q(x)
            k = self.k(x)
            v = self.v(x)
            q, k, v = self.heads(q), self.heads(k), self.heads(v)
            scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(EMBED // HEADS)
            attention = torch.matmul(torch.softmax(scores, dim=-1), v)
            b, _, s, _ = attention.shape
            attention = attention.transpose(1, 2).reshape(b, s, EMBED)
            x = self.ln1(x + self.o(attention))
            return self.ln2(x + self.fc2(torch.nn.functional.gelu(self.fc1(x))))

    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([Block() for _ in range(LAYERS)])

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    torch.manual_seed(0)
    return Encoder(), torch.randn(1, SEQ, EMBED)


def export(out, name):
    import torch
    model, x = build()
    model.eval()
    path = os.path.join(out, f"{name}.onnx")
    torch.onnx.export(model, x, path, opset_version=13, input_names=["input"],
                      output_names=["output"], training=torch.onnx.TrainingMode.EVAL,
                      do_constant_folding=True)
    m = onnx.load(path)
    onnx.checker.check_model(m)
    convert_model_to_external_data(m, all_tensors_to_one_file=True, location=f"{name}.weights",
                                   size_threshold=0)
    onnx.save_model(m, os.path.join(out, f"{name}.external.onnx"), save_as_external_data=False)
    weights = os.path.join(out, f"{name}.weights")
    if os.path.exists(weights): os.remove(weights)
    full = os.path.getsize(path)
    os.remove(path)  # only the structure is kept, as for the corpus's external models
    return full


def qkv(graph):
    initializers = {t.name: t for t in graph.initializer}
    weighted = [n for n in graph.node
                if n.op_type in ("MatMul", "Gemm") and n.input[1] in initializers]
    readers = collections.defaultdict(list)
    for node in weighted: readers[node.input[0]].append(node)
    triples = [nodes for nodes in readers.values() if len(nodes) == 3]
    matmul = sum(1 for n in graph.node if n.op_type == "MatMul")
    return {"matmul": matmul, "gemm": sum(1 for n in graph.node if n.op_type == "Gemm"),
            "weighted_matmul": len(weighted),
            "fork_sizes": {str(k): v for k, v in sorted(collections.Counter(
                len(nodes) for nodes in readers.values() if len(nodes) >= 2).items())},
            "triples": len(triples),
            "triple_widths": [[initializers[n.input[1]].dims[-1] for n in nodes]
                              for nodes in triples],
            "matmul_after": matmul - 2 * len(triples)}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    warnings.filterwarnings("ignore")
    counts = {}
    name = "qkv_encoder"
    full = export(out, name)
    file = f"{name}.external.onnx"
    m = onnx.load(os.path.join(out, file), load_external_data=False)
    counts[file] = {"nodes": len(m.graph.node), "initializers": len(m.graph.initializer),
                    "ops": dict(sorted(collections.Counter(n.op_type for n in m.graph.node).items())),
                    "qkv": qkv(m.graph)}
    print(file, os.path.getsize(os.path.join(out, file)), "bytes,", full, "with weights,",
          counts[file])
    with open(os.path.join(out, "counts.json"), "w") as f:
        f.write(json.dumps(counts, indent=1) + "\n")


if __name__ == "__main__":
    main()
