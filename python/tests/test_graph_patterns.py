"""Graph patterns from Python with Relax's spelling (`with PatternContext() as ctx:`, `^`, `>>`,
used_by, only_used_by, fork_to, dup): TVM's tests/python/relax/test_dataflow_pattern.py cases
(tests/data/graph_patterns/relax/cases.json, its modules in Relay text) run as Python, and
partition by a QKV context into one function with three outputs."""
import json

import pytest

import graphpat
import graphpat.dpl as dpl
import graphpat.relay as relay
from conftest import DATA

RELAX = DATA / "graph_patterns" / "relax"
CASES = json.loads((RELAX / "cases.json").read_text())["cases"]


def run_context(lines):
    """Runs a case's `with PatternContext() as ctx:` text as Python over graphpat.dpl; returns
    its context and the names it bound."""
    scope = dict(vars(dpl))
    exec("\n".join(lines), scope)
    contexts = [v for v in scope.values() if isinstance(v, dpl.PatternContext)]
    assert len(contexts) == 1
    return contexts[0], scope


def node_named(main, spelling):
    """`%x`: the parameter x; `op#k`: the k-th call of op in the text (ids follow the text)."""
    if spelling.startswith("%"):
        return next(p for p in main.operands if p.kind == "Var" and p.name == spelling[1:])
    op, k = spelling.split("#")
    seen, stack, calls = set(), [main], []
    while stack:
        node = stack.pop()
        if node.index not in seen:
            seen.add(node.index)
            calls += [node] if node.kind == "Call" and node.op == op else []
            stack.extend(node.operands)
    return sorted(calls, key=lambda n: n.index)[int(k)]


@pytest.mark.parametrize("case", CASES, ids=[f"{c['test']}-{i}" for i, c in enumerate(CASES)])
def test_relax_case(case):
    main = relay.parse((RELAX / "modules" / f"{case['module']}.relay").read_text())["main"]
    ctx, scope = run_context(case["pattern"])
    found = ctx.match_dfb(main)
    assert (found is not None) is case["expected"]
    for name, spelling in case.get("bindings", {}).items():
        assert found[scope[name]] == node_named(main, spelling), name
    if "matches" in case:
        assert len(ctx.match_all(main)) == case["matches"]
    elif not case["expected"]:
        assert ctx.match_all(main) == []


def test_every_case_is_here():
    assert len(CASES) == 29


def qkv_context():
    with dpl.PatternContext() as ctx:
        inp = dpl.wildcard()
        q = dpl.is_op("nn.dense")(inp, dpl.wildcard())
        k = dpl.is_op("nn.dense")(inp, dpl.wildcard())
        v = dpl.is_op("nn.dense")(inp, dpl.wildcard())
    return ctx, (q, k, v)


def test_partition_makes_each_qkv_block_one_function():
    mod = relay.parse((RELAX / "modules" / "qkv_x2.relay").read_text())
    ctx, _ = qkv_context()
    out, report = ctx.partition(mod, attrs={"Composite": "qkv"})
    assert (report["accepted"], report["rejected"]) == (2, [])
    expected = relay.parse((DATA / "graph_patterns" / "partition" / "qkv_x2_outlined.relay").read_text())
    assert graphpat.structural_equal(out, expected)


def test_the_context_text_is_relax_spelling():
    ctx, (q, k, v) = qkv_context()
    # Each pattern in the order it was made, after its operands.
    assert ctx.text() == "\n".join([
        "with PatternContext() as ctx:",
        "    p0 = wildcard()",
        "    p1 = is_op('nn.dense')",
        "    p2 = wildcard()",
        "    p3 = p1(p0, p2)",
        "    p4 = is_op('nn.dense')",
        "    p5 = wildcard()",
        "    p6 = p4(p0, p5)",
        "    p7 = is_op('nn.dense')",
        "    p8 = wildcard()",
        "    p9 = p7(p0, p8)",
    ])


def test_constraints_need_an_open_context():
    with pytest.raises(RuntimeError, match="used_by constrains a PatternContext"):
        dpl.is_op("nn.relu")(None) ^ dpl.is_op("add")(None)
    with pytest.raises(RuntimeError, match="do not nest"):
        with dpl.PatternContext():
            with dpl.PatternContext():
                pass
    assert dpl.PatternContext.current() is None


def test_an_empty_context_is_a_graphpat_error():
    mod = relay.parse((RELAX / "modules" / "qkv_x2.relay").read_text())
    with dpl.PatternContext() as ctx:
        pass
    with pytest.raises(graphpat.Error) as caught:
        ctx.match_dfb(mod["main"])
    assert caught.value.id == "graphpat.graph_pattern.empty"
