"""graphpat.dpl beyond the conformance data: partition's check(pre), its exceptions, identity of
a pattern used twice, the text a pattern is written as, and pattern errors."""
import pytest

import graphpat
import graphpat.relay as relay
from graphpat.dpl import is_op, is_var, wildcard
from conftest import DATA

CONV_RELU = """#[version = "0.0.5"]
def @main(%input, %weight) {
  %0 = nn.conv2d(%input, %weight, padding=[0, 0, 0, 0]);
  nn.relu(%0)
}
"""


def pattern():
    return is_op("nn.relu")(is_op("nn.conv2d")(is_var("input"), wildcard()))


def test_partition_check_sees_the_root():
    seen = []

    def check(pre):
        seen.append((pre.op, [arg.op for arg in pre.args]))
        return True

    out, report = pattern().partition(relay.parse(CONV_RELU), check=check)
    assert seen == [("nn.relu", ["nn.conv2d"])]
    assert report["accepted"] == 1


def test_partition_check_false_keeps_the_module():
    mod = relay.parse(CONV_RELU)
    out, report = pattern().partition(mod, check=lambda pre: False)
    assert report["accepted"] == 0
    assert out.astext() == mod.astext()


def test_exception_in_check_propagates():
    def check(pre):
        raise ValueError("from check")

    with pytest.raises(ValueError, match="from check"):
        pattern().partition(relay.parse(CONV_RELU), check=check)


def test_a_pattern_used_twice_is_one_node():
    x = wildcard()
    assert (x + x).text() == "p0 = is_op('add')\np1 = wildcard()\np2 = p0(p1, p1)\np2"


def test_sugar_and_constraints_are_written_as_tvm_spells_them():
    p = (wildcard() * wildcard()).has_dtype("float32") | ~is_var("x")
    assert p.text() == ("p0 = is_op('multiply')\np1 = wildcard()\np2 = wildcard()\n"
                        "p3 = p0(p1, p2)\np4 = p3.has_dtype('float32')\np5 = is_var('x')\n"
                        "p6 = ~p5\np7 = p4 | p6\np7")


def test_pattern_error_is_a_graphpat_error():
    with pytest.raises(graphpat.Error) as caught:
        wildcard().has_type("Tensor[(1,").match(relay.parse(CONV_RELU)["main"].body)
    assert caught.value.id.startswith("graphpat.pattern_text.")
    assert caught.value.line is not None


def test_partition_check_as_tvm_writes_it():
    # test_dataflow_pattern.py's test_partition_check, on its two inputs (077_partition_check_*).
    pattern = is_op("nn.relu")(is_op("nn.conv2d")(is_var("input"), wildcard()))

    def check(pre):
        conv = pre.args[0]
        return conv.attrs.data_layout == "NCHW"

    cases = DATA / "corpus" / "conformance"
    for name, accepted in (("077_partition_check_a", 1), ("077_partition_check_b", 0)):
        mod = relay.parse((cases / name / "input.relay").read_text())
        out, report = pattern.partition(mod, check=check, relay_compat=True)
        expected = relay.parse((cases / name / "expected.relay").read_text())
        assert (report["accepted"], out.astext()) == (accepted, expected.astext())


def test_attrs_as_python_values():
    conv = relay.parse(CONV_RELU)["main"].body.args[0]
    assert conv.attrs.padding == [0, 0, 0, 0]
    assert (conv.attrs["data_layout"], conv.attrs.out_dtype, conv.attrs.groups) == ("NCHW", "", 1)
    assert relay.parse(CONV_RELU)["main"].body.args[0].args[0].attrs is None
