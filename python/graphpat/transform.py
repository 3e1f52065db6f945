"""Passes over a whole module, with TVM's names (tvm.relay.transform) and as functions that
also return their report; for Relay and ONNX modules alike.

    from graphpat.transform import MergeComposite, EliminateCommonSubexpr
    table = [("conv_bias_relu", conv_bias_relu), ("add_relu", add_relu, batch_is_one)]
    mod = MergeComposite(table)(mod)                # as TVM: the module only
    mod, report = graphpat.transform.merge_composite(table, mod)   # report["accepted"], ...
    mod, merged = graphpat.transform.eliminate_common_subexpr(mod) # merged["merged_by"]
"""
from .dpl import _module_engine


def merge_composite(pattern_table, mod, relay_compat=False):
    """TVM's MergeComposite: each entry `(name, pattern)` or `(name, pattern, check)` is
    partitioned in table order, its functions carrying `Composite=name`; returns (the new
    Module, the report partition gives, its sentences naming the entry)."""
    engine = _module_engine(mod, "merge_composite")
    entries = []
    for entry in pattern_table:
        if len(entry) not in (2, 3):
            raise ValueError("a pattern table entry is (name, pattern) or (name, pattern, check)")
        name, pattern = entry[0], entry[1]
        entries.append((str(name), pattern._compiled(), entry[2] if len(entry) == 3 else None))
    native, report = engine.merge_composite(entries, mod._native, relay_compat)
    return mod._derived(native), report


def eliminate_common_subexpr(mod, relay_compat=False):
    """Merges structurally equal pure nodes (graphpat/transform/cse.hpp; `relay_compat`: TVM
    v0.14's EliminateCommonSubexpr exactly); returns (the new Module, {"merged": n,
    "merged_by": {"Call nn.relu": n, "TupleGetItem": n, ...}})."""
    engine = _module_engine(mod, "eliminate_common_subexpr")
    native, report = engine.eliminate_common_subexpr(mod._native, relay_compat)
    return mod._derived(native), report


def MergeComposite(pattern_table, relay_compat=False):
    """tvm.relay.transform.MergeComposite: a pass, called on a module, returning the module."""
    return lambda mod: merge_composite(pattern_table, mod, relay_compat)[0]


def EliminateCommonSubexpr(fskip=None, relay_compat=False):
    """tvm.relay.transform.EliminateCommonSubexpr: a pass, called on a module. `fskip` (TVM's
    Python predicate) is not offered: pass None."""
    if fskip is not None:
        raise NotImplementedError("EliminateCommonSubexpr(fskip=...) is not offered by graphpat")
    return lambda mod: eliminate_common_subexpr(mod, relay_compat)[0]
