"""TVM's DPL conformance cases (tests/data/corpus/conformance, from TVM's
test_dataflow_pattern.py) through graphpat.dpl: each case's pattern is TVM's Python, run here
with `from graphpat.dpl import *`; match cases give TVM's answer, partition cases TVM's output
(printed by graphpat's printer, which prints as TVM does)."""
import json

import pytest

import graphpat
import graphpat.dpl
import graphpat.relay as relay
from conftest import DATA

CASES = DATA / "corpus" / "conformance"
# Cases driven elsewhere or not yet drivable from Python: a `check` callback written in words
# (test_dpl.py tests check(pre)), call attributes set on the input beside its text
# (044_match_call_attr_c), several partitions in steps.
UNSUPPORTED_OPTIONS = {"check", "test_check", "call_attrs"}


def pattern_of(text, exprs=None):
    """Runs a case's pattern text, `name = expr` lines then an expression, as TVM's Python;
    `exprs`: the Relay text of the expressions it names (is_expr(wc))."""
    scope = dict(vars(graphpat.dpl))
    scope["relay"] = relay
    for name, expr in (exprs or {}).items():
        scope[name] = relay.parse_expr(expr)
    *statements, last = text.strip().split("\n")
    exec("\n".join(statements), scope)
    return eval(last, scope)


def cases(op):
    found = []
    for folder in sorted(CASES.iterdir()):
        case_file = folder / "case.json"
        if not case_file.exists():
            continue
        case = json.loads(case_file.read_text())
        if case["op"] != op or "steps" in case or UNSUPPORTED_OPTIONS & set(case.get("options", {})):
            continue
        found.append(pytest.param(folder, case, id=folder.name))
    return found


def root_of(mod, root):
    main = mod["main"]
    return main.body if root == "main.body" else main


@pytest.mark.parametrize("folder,case", cases("match"))
def test_match(folder, case):
    mod = relay.parse((folder / "input.relay").read_text())
    pattern = pattern_of(case["pattern"], case.get("options", {}).get("is_expr_exprs"))
    assert pattern.match(root_of(mod, case["root"]), relay_compat=True) is case["expected"]


@pytest.mark.parametrize("folder,case", cases("partition"))
def test_partition(folder, case):
    if case.get("input_typed"):
        pytest.skip("TVM type-infers the input and the output; graphpat.relay has no InferType")
    mod = relay.parse((folder / "input.relay").read_text())
    attrs = case.get("attrs", {})
    pattern = pattern_of(case["pattern"], case.get("options", {}).get("is_expr_exprs"))
    out, _ = pattern.partition(mod, attrs=attrs, relay_compat=True)
    expected = relay.parse((folder / "expected.relay").read_text())
    assert out.astext() == expected.astext()
    # pattern.partition(mod["main"]), as TVM's tests call it: the same function.
    function, _ = pattern.partition(mod["main"], attrs=attrs, relay_compat=True)
    assert graphpat.structural_equal(function, expected["main"], compare_types=True)
