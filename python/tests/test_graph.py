"""The node view's users and constants, building calls with attributes, and the passes
(CSE, MergeComposite), explanations, structural equality and pictures, on Relay modules."""
import base64
import json
import struct

import numpy
import pytest

import graphpat
import graphpat.dpl as dpl
import graphpat.relay as relay
import graphpat.transform as transform
from conftest import DATA
from test_conformance import pattern_of

MODELS = DATA / "corpus" / "models"
CASES = DATA / "corpus" / "conformance"

TWO_RELUS = """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8), float32]) {
  %0 = nn.relu(%x);
  %1 = nn.relu(%x);
  add(%0, %1)
}
"""


def test_users_in_id_order():
    main = relay.parse(TWO_RELUS)["main"]
    add = main.body
    first, second = add.args
    (x,) = main.operands[:1]
    assert x.name == "x"
    # A function's parameters are among its operands: main uses %x too.
    assert x.users == [first, second, main]
    assert first.users == [add] and second.users == [add]
    assert [user.kind for user in add.users] == ["Function"]


def tvm_ndarray(blob):
    """One array of TVM's NDArray serialization (runtime/ndarray.h: magic, reserved, device,
    ndim, dtype code/bits/lanes, shape, byte count, bytes), read independently of graphpat."""
    magic, _, _, ndim, code, bits, lanes = struct.unpack_from("<QQQiBBH", blob, 0)
    assert magic == 0xDD5E40F096B4A13F
    shape = struct.unpack_from(f"<{ndim}q", blob, 32)
    (size,) = struct.unpack_from("<q", blob, 32 + 8 * ndim)
    start = 40 + 8 * ndim
    return (code, bits, lanes), tuple(shape), blob[start:start + size]


def test_constants_are_numpy_arrays_over_the_graphs_bytes():
    text = (MODELS / "mlp.full.json").read_text()
    recorded = sorted((shape, data) for (code, bits, lanes), shape, data in
                      (tvm_ndarray(base64.b64decode(b)) for b in json.loads(text)["b64ndarrays"])
                      if (code, bits, lanes) == (2, 32, 1))
    mod = relay.load_json(text)
    seen, stack, constants = set(), [mod["main"]], []
    while stack:
        node = stack.pop()
        if node.index in seen:
            continue
        seen.add(node.index)
        if node.kind == "Constant":
            constants.append(node)
        stack.extend(node.operands)
    assert len(recorded) == len(constants) == 6
    arrays = [c.data for c in constants]
    assert all(a.dtype == numpy.float32 and not a.flags.writeable for a in arrays)
    assert sorted((a.shape, a.tobytes()) for a in arrays) == recorded
    assert [(c.dtype, c.shape) for c in constants] == [("float32", a.shape) for a in arrays]
    # No copy: a second view reads the same memory, kept alive by the array alone.
    weight = max(constants, key=lambda c: c.data.size)
    first = weight.data
    assert first.__array_interface__["data"][0] == weight.data.__array_interface__["data"][0]
    del mod, weight, constants
    assert first.sum() == numpy.frombuffer(first.tobytes(), numpy.float32).sum()


def test_a_constant_without_bytes_has_no_data():
    text = (MODELS / "mlp.relay").read_text()   # meta[relay.Constant][i]: the bytes omitted
    main = relay.parse(text)["main"]
    dense = main.body
    while dense.op != "nn.dense":
        dense = dense.args[0]
    weight = dense.args[1]
    assert (weight.kind, weight.data, weight.dtype) == ("Constant", None, "float32")
    assert relay.parse_expr("2f").data.tolist() == 2.0


class ReluToLeaky(dpl.DFPatternCallback):
    def __init__(self):
        super().__init__()
        self.x = dpl.wildcard()
        self.pattern = dpl.is_op("nn.relu")(self.x)

    def callback(self, pre, post, node_map):
        return relay.call("nn.leaky_relu", node_map[self.x][0], alpha=0.5)


def test_a_callback_builds_a_call_with_attributes():
    # alpha is a double field of LeakyReluAttrs (default 0.25): TVM prints it `0.5f`.
    text = TWO_RELUS.replace("%x: Tensor[(1, 8), float32]", "%x, %y").replace("%1 = nn.relu(%x)",
                                                                            "%1 = nn.relu(%y)")
    out = dpl.rewrite(ReluToLeaky(), relay.parse(text), relay_compat=True)
    assert str(out) == ("def @main(%x, %y) {\n"
                        "  %0 = nn.leaky_relu(%x, alpha=0.5f);\n"
                        "  %1 = nn.leaky_relu(%y, alpha=0.5f);\n"
                        "  add(%0, %1)\n"
                        "}\n")
    # On one %x: two calls in TVM's mode (two Call objects), one node once duplicates are merged.
    kept = dpl.rewrite(ReluToLeaky(), relay.parse(TWO_RELUS), relay_compat=True)
    assert str(kept).endswith("  %0 = nn.leaky_relu(%x, alpha=0.5f);\n"
                              "  %1 = nn.leaky_relu(%x, alpha=0.5f);\n  add(%0, %1)\n}\n")
    merged = dpl.rewrite(ReluToLeaky(), relay.parse(TWO_RELUS))
    assert str(merged).endswith("  %0 = nn.leaky_relu(%x, alpha=0.5f);\n  add(%0, %0)\n}\n")


def test_a_callback_attribute_the_op_cannot_hold_is_an_error():
    class Bad(ReluToLeaky):
        def callback(self, pre, post, node_map):
            return relay.call("nn.leaky_relu", node_map[self.x][0], alpha="high")

    with pytest.raises(graphpat.Error) as caught:
        dpl.rewrite(Bad(), relay.parse(TWO_RELUS))
    assert caught.value.id == "graphpat.relay_text.bad_attribute"

    class Odd(ReluToLeaky):
        def callback(self, pre, post, node_map):
            return relay.call("nn.leaky_relu", node_map[self.x][0], alpha={"a": 1})

    with pytest.raises(TypeError, match="an attribute is a bool, int, float, str or a list"):
        dpl.rewrite(Odd(), relay.parse(TWO_RELUS))


@pytest.mark.parametrize("model", ["lstm", "mlp", "mobilenet_v1", "mobilenet_v2_mxnet_style",
                                   "resnet18", "squeezenet1_0"])
def test_cse_gives_tvms_output(model):
    mod = relay.parse((MODELS / f"{model}.relay").read_text())
    out, report = transform.eliminate_common_subexpr(mod, relay_compat=True)
    expected = (DATA / "corpus" / "tvm" / "cse" / f"{model}.relay").read_text()
    assert out.astext(show_meta_data=False) == expected
    assert report["merged"] == sum(report["merged_by"].values())
    assert (report["merged"] > 0) == (expected != mod.astext(show_meta_data=False))


def test_cse_merges_the_duplicated_relu():
    out, report = transform.eliminate_common_subexpr(relay.parse(TWO_RELUS))
    assert report == {"merged": 1, "merged_by": {"Call nn.relu": 1}}
    assert str(out).endswith("  %0 = nn.relu(%x);\n  add(%0, %0)\n}\n")
    assert str(transform.EliminateCommonSubexpr()(relay.parse(TWO_RELUS))) == str(out)


# The checks of TVM's test_pass_merge_composite.py cases, as Python (the cases say them in words).
CHECKS = {
    "mc_10_pattern_with_check_a": lambda extract: extract.args[0].args[0].attrs.data_layout == "NCHW",
    "mc_10_pattern_with_check_b": lambda extract: extract.args[0].args[0].attrs.data_layout == "NHWC",
    # conv.checked_type.shape[0]: the batch of the conv's type, read from its text.
    "mc_12_type_check_a": lambda extract: not extract.args[0].args[0].type_text.startswith("Tensor[(1,"),
    "mc_12_type_check_b": lambda extract: extract.args[0].args[0].type_text.startswith("Tensor[(1,"),
}


def merge_composite_cases():
    found = []
    for folder in sorted(CASES.iterdir()):
        case_file = folder / "case.json"
        if case_file.exists():
            case = json.loads(case_file.read_text())
            if case["op"] == "merge_composite":
                found.append(pytest.param(folder, case, id=folder.name))
    return found


@pytest.mark.parametrize("folder,case", merge_composite_cases())
def test_merge_composite_gives_tvms_output(folder, case):
    mod = relay.parse((folder / "input.relay").read_text())
    table = []
    for name, text in case["table"]:
        check = CHECKS.get(folder.name) if "check" in case["options"] and name in case["options"]["check"] else None
        table.append((name, pattern_of(text)) + ((check,) if check else ()))
    out, report = transform.merge_composite(table, mod, relay_compat=True)
    expected = mod if case["unchanged"] else relay.parse((folder / "expected.relay").read_text())
    assert graphpat.structural_equal(out["main"], expected["main"])
    assert (report["accepted"] == 0) is case["unchanged"]
    assert graphpat.structural_equal(transform.MergeComposite(table, relay_compat=True)(mod), out)


def test_merge_composite_cases_are_all_here():
    assert len(merge_composite_cases()) == 18


def test_the_origin_case_through_merge_composite():
    """The README's numbers: 48 groups as TVM makes them, 53 when duplicates are merged first;
    each refusal in a sentence naming the entry."""
    mod = relay.parse((MODELS / "mobilenet_v2_mxnet_style.relay").read_text())
    bn = dpl.is_tuple_get_item(dpl.is_op("nn.batch_norm")(*[dpl.wildcard() for _ in range(5)]), 0)
    out, report = transform.merge_composite([("bn", bn)], mod, relay_compat=True)
    assert report["accepted"] == 48
    assert report["rejected"] and all(r.startswith("group of 'bn' at %") for r in report["rejected"])
    assert transform.merge_composite([("bn", bn)], mod)[1]["accepted"] == 53


def test_structural_equal():
    a, b = relay.parse(TWO_RELUS), relay.parse(TWO_RELUS.replace("%x", "%y"))
    assert graphpat.structural_equal(a, b)
    assert graphpat.structural_equal(a["main"], b["main"])
    assert not graphpat.structural_equal(a["main"].body, a["main"].body.args[0])
    with pytest.raises(TypeError):
        graphpat.structural_equal(a, a["main"])


def test_explain_says_why_not():
    main = relay.parse(TWO_RELUS)["main"]
    pattern = dpl.is_op("nn.relu")(dpl.is_op("nn.conv2d")(dpl.wildcard(), dpl.wildcard()))
    assert pattern.explain(main.body) == "expected op nn.relu, got add"
    assert dpl.is_op("add")(dpl.wildcard(), dpl.wildcard()).explain(main.body) == "matched"


def test_dot_and_svg():
    mod = relay.parse(TWO_RELUS)
    out, _ = dpl.is_op("nn.relu")(dpl.wildcard()).partition(mod, attrs={"Composite": "relu"},
                                                             relay_compat=True)
    dot = out.to_dot()
    assert dot.startswith("digraph")
    assert dot.count("subgraph cluster") == 2 and dot.count('label="relu"') == 2
    svg = out._repr_svg_()
    assert svg is not None and "<svg" in svg and svg.count('class="cluster"') == 2
    with pytest.raises(graphpat.Error) as caught:
        mod.to_dot(function="other")
    assert caught.value.id == "graphpat.dot.unknown_function"


def test_a_callback_builds_constants():
    class ReluToAddOne(dpl.DFPatternCallback):
        def __init__(self):
            super().__init__()
            self.x = dpl.wildcard()
            self.pattern = dpl.is_op("nn.relu")(self.x)

        def callback(self, pre, post, node_map):
            x = node_map[self.x][0]
            return relay.call("multiply", relay.call("add", x, relay.const(1.0)),
                              relay.const(2, "int64"))

    out = dpl.rewrite(ReluToAddOne(), relay.parse(TWO_RELUS), relay_compat=True)
    # TVM binds a node when its consumer's text is built (docs/relay-formats.md §1.8 rule 1):
    # both adds when the multiplies are built, then both multiplies for the root.
    assert str(out).endswith("  %0 = add(%x, 1f);\n  %1 = add(%x, 1f);\n"
                             "  %2 = multiply(%0, 2i64);\n  %3 = multiply(%1, 2i64);\n"
                             "  add(%2, %3)\n}\n")
    assert relay.const(True).kind == "Constant"  # outside a callback: a module of its own
