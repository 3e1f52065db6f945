"""graphpat.onnx: real PyTorch exports (tests/data/onnx, with counts.json's independent motif
counts) read, viewed, matched, merged into composites, rewritten and written back."""
import json
import os
import pathlib
import re

import pytest

import graphpat
import graphpat.dpl as dpl
import graphpat.onnx as onnx
import graphpat.transform as transform
from conftest import DATA

ONNX = DATA / "onnx"
COUNTS = json.loads((ONNX / "counts.json").read_text())
MODELS = sorted(p.name for p in ONNX.glob("*.onnx"))

# counts.json's motifs as patterns (tests/onnx/test_onnx_engines.cpp says why each is spelt so).
MOTIFS = {
    "relu": "is_op('Relu')(None)",
    "conv_relu": "is_op('Relu')(is_op('Conv')(None))",
    "conv_add_relu": "is_op('Relu')(is_op('Add')(is_op('Conv')(None), wildcard()))",
    "matmul_add": "is_op('Add')(is_op('MatMul')(None), wildcard())",
    "gemm": "is_op('Gemm')(None)",
    "add_any": "is_op('Add')(None)",
}


def pattern(text):
    return eval(text, dict(vars(dpl)))


def nodes_of(mod):
    """Every node main reaches, each once, without recursion."""
    seen, stack, found = set(), [mod["main"]], []
    while stack:
        node = stack.pop()
        if node.index not in seen:
            seen.add(node.index)
            found.append(node)
            stack.extend(node.operands)
    return found


def test_an_unchanged_model_is_written_back_byte_for_byte(tmp_path):
    for name in MODELS:
        data = (ONNX / name).read_bytes()
        mod = onnx.load(ONNX / name)
        assert onnx.save(mod) == data, name
    onnx.save(onnx.load(data), tmp_path / "again.onnx")
    assert (tmp_path / "again.onnx").read_bytes() == data


@pytest.mark.parametrize("name", ["resnet18.external.onnx", "bert_gelu_opset13.onnx",
                                  "lstm_tagger.onnx"])
def test_node_and_motif_counts_equal_counts_json(name):
    mod = onnx.load(ONNX / name)
    nodes = nodes_of(mod)
    expected = COUNTS[name]
    assert sum(n.kind == "Call" for n in nodes) == expected["nodes"]
    assert sum(n.kind == "Constant" for n in nodes) == expected["initializers"]
    for motif, text in MOTIFS.items():
        p = pattern(text)
        assert sum(p.match(n) for n in nodes if n.kind != "Op") == expected["motifs"][motif], motif


def test_node_view_of_resnet18s_stem():
    mod = onnx.load(ONNX / "resnet18.external.onnx")
    stem = next(n for n in nodes_of(mod) if n.op == "Conv" and n.args[0].kind == "Var")
    # torchvision's resnet18: a 7x7 stride-2 convolution padded by 3 on every side.
    assert stem.attrs.kernel_shape == [7, 7]
    assert (stem.attrs["strides"], stem.attrs.pads) == ([2, 2], [3, 3, 3, 3])
    image = stem.args[0]  # the graph input, named by the exporter
    assert (image.kind, image.name, image.type_text) == ("Var", "input", "Tensor[(1, 3, 224, 224), float32]")
    weight = stem.args[1]
    assert (weight.kind, weight.dtype, weight.shape) == ("Constant", "float32", (64, 3, 7, 7))
    assert weight.data is None  # the weights are in an external file, never opened
    assert [u.op for u in stem.users] == ["Relu"]


def test_initializers_are_numpy_arrays_over_the_files_bytes():
    data = (ONNX / "lstm_tagger.onnx").read_bytes()
    constants = [n for n in nodes_of(onnx.load(data)) if n.kind == "Constant"]
    arrays = [c.data for c in constants]
    assert len(arrays) == COUNTS["lstm_tagger.onnx"]["initializers"]
    for constant, array in zip(constants, arrays):
        assert array.shape == constant.shape and str(array.dtype) == constant.dtype
        assert not array.flags.writeable
        if array.nbytes >= 16:
            assert array.tobytes() in data  # the initializer's raw_data, as the file holds it


def test_merge_composite_fuses_resnet18_and_the_file_reads_back():
    mod = onnx.load(ONNX / "resnet18.external.onnx")
    motifs = COUNTS["resnet18.external.onnx"]["motifs"]
    table = [(name, pattern(MOTIFS[name])) for name in ("conv_add_relu", "conv_relu", "gemm")]
    out, report = transform.merge_composite(table, mod)
    assert report["accepted"] == motifs["conv_add_relu"] + motifs["conv_relu"] + motifs["gemm"]
    assert report["rejected"] == []
    composites = [n.attrs["graphpat.composite"] for n in nodes_of(out) if n.kind == "Function"
                  and n.attrs and "graphpat.composite" in n.attrs]
    assert {name: composites.count(name) for name in set(composites)} == {
        name: motifs[name] for name, _ in table}
    # One FunctionProto per distinct body (conv attributes differ): conv_relu, conv_relu_2, ...
    again = onnx.load(onnx.save(out))
    motif_of = re.compile(r"graphpat\.(conv_add_relu|conv_relu|gemm)(_\d+)?")
    assert all(motif_of.fullmatch(f) for f in again.functions() if f != "main")
    called = [motif_of.fullmatch(n.operands[0].name).group(1) for n in nodes_of(again)
              if n.kind == "Call" and n.operands[0].kind == "GlobalVar"]
    assert {name: called.count(name) for name in set(called)} == {
        name: motifs[name] for name, _ in table}


def test_explain_a_residual_relu():
    mod = onnx.load(ONNX / "resnet18.external.onnx")
    relu = next(n for n in nodes_of(mod) if n.op == "Relu" and n.args[0].op == "Add")
    conv_relu = pattern(MOTIFS["conv_relu"])
    assert conv_relu.explain(relu) == f"expected op Conv, got Add; in operand 0 of %{relu.index} = Relu(...)"
    assert pattern(MOTIFS["conv_add_relu"]).explain(relu) == "matched"


class ReluToLeaky(dpl.DFPatternCallback):
    def __init__(self):
        super().__init__()
        self.x = dpl.wildcard()
        self.pattern = dpl.is_op("Relu")(self.x)

    def callback(self, pre, post, node_map):
        return onnx.call("LeakyRelu", node_map[self.x][0], alpha=0.5)


def test_rewrite_builds_onnx_nodes_that_are_written_and_read_back():
    mod = onnx.load(ONNX / "resnet18.external.onnx")
    out = dpl.rewrite(ReluToLeaky(), mod)
    again = onnx.load(onnx.save(out))
    ops = [n.op for n in nodes_of(again) if n.kind == "Call"]
    assert ops.count("Relu") == 0
    assert ops.count("LeakyRelu") == COUNTS["resnet18.external.onnx"]["motifs"]["relu"]
    leaky = next(n for n in nodes_of(again) if n.op == "LeakyRelu")
    assert leaky.attrs == {"alpha": 0.5}


def test_partition_keeps_a_check_and_the_report():
    mod = onnx.load(ONNX / "resnet18.external.onnx")
    seen = []

    def wide(root):
        seen.append(root.op)
        return root.args[0].attrs.kernel_shape == [3, 3]

    out, report = pattern(MOTIFS["conv_relu"]).partition(mod, attrs={"Composite": "cr"}, check=wide)
    assert set(seen) == {"Relu"} and len(seen) == COUNTS["resnet18.external.onnx"]["motifs"]["conv_relu"]
    assert report["accepted"] == len(seen) - len(report["rejected"])
    assert all(re.fullmatch(r"group at %\d+ \(Relu\) refused: the check returned false", r)
               for r in report["rejected"])
    assert out.to_dot().count("subgraph cluster") == report["accepted"]


def test_bad_bytes_are_a_graphpat_error():
    with pytest.raises(graphpat.Error) as caught:
        onnx.load(b"not an onnx model")
    assert caught.value.id == "graphpat.onnx.not_onnx"
    assert caught.value.problem == ("model: protobuf cannot parse these 17 bytes as an "
                                    "onnx.ModelProto (truncated, or another format)")


def test_a_tensor_attribute_reads_as_bytes():
    mod = onnx.load(ONNX / "qkv" / "qkv_encoder.external.onnx")
    constants = [n for n in nodes_of(mod) if n.kind == "Call" and n.op == "Constant"]
    assert len(constants) == json.loads((ONNX / "qkv" / "counts.json").read_text())[
        "qkv_encoder.external.onnx"]["ops"]["Constant"]
    for node in constants:
        # value=TENSOR: an onnx.TensorProto, serialized; bytes when not UTF-8 (most are not).
        (value,) = node.attrs.values()
        proto = value["proto"]
        proto = proto if isinstance(proto, bytes) else proto.encode()
        # The wire format: field 1 (dims, tag 0x08) or 2 (data_type, tag 0x10) comes first.
        assert list(value) == ["proto"] and proto[:1] in (b"\x08", b"\x10")
    assert any(isinstance(n.attrs["value"]["proto"], bytes) for n in constants)


def test_every_libonnx_testdata_model_reads_views_and_writes_back():
    """ONNX's own 1,072 test models (Debian's libonnx-testdata): each loads, every node of every
    function shows every property, CSE runs, and the unchanged model writes back byte for byte."""
    root = os.environ.get("GRAPHPAT_ONNX_TESTDATA_DIR", "/usr/share/libonnx-testdata/data")
    paths = sorted(pathlib.Path(root).rglob("*.onnx"))
    assert len(paths) == 1072
    for path in paths:
        data = path.read_bytes()
        mod = onnx.load(data)
        for function in mod.functions():
            seen, stack = set(), [mod[function]]
            while stack:
                node = stack.pop()
                if node.index in seen:
                    continue
                seen.add(node.index)
                stack.extend(node.operands)
                for name in ("kind", "op", "name", "type_text", "attrs", "args", "users",
                             "dtype", "shape", "body", "data"):
                    getattr(node, name)
        transform.eliminate_common_subexpr(mod)
        assert onnx.save(mod) == data, path
