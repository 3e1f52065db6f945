"""What graphpat's Python package costs, printed as two tables (issue 26, "Tests and figures").

1. A rewrite of chains of relu(x * 2 + 1), 100 to 100,000 steps: each step becomes
   relu((x + x) + 1) (one multiply replaced by an add; same value, a different graph), done by
   torch.fx's subgraph_rewriter.replace_pattern, by graphpat.dpl.rewrite with a Python
   DFPatternCallback, and by graphpat::rewrite with a C++ RewriteCallback (cxx_baseline). Each
   result is checked (no multiply left, 2 adds and 1 relu per step) before its time is shown.
   Times are of the rewrite alone: building the torch.fx graph and parsing the Relay text are not
   counted. torch.fx's subgraph matcher checks each match with a recursive walk over its users
   (fuser_utils.validate_partition), which raises RecursionError once the chain is deeper than
   Python's recursion limit; the table says so. "Python cost" is (Python - C++) per callback call, one call per step.
2. pattern.partition on corpus models from Python against partition in C++ of the same pattern
   (its text, pattern.text(), read once by parse_pattern; the Python pattern compiles itself at
   its first use and keeps it): the difference is the cost of one Python call.

torch is optional: without it the torch.fx column says "no torch". Run from the repository root,
after building the Python package and cxx_baseline in a Release build:

    cmake --build build --target graphpat_python cxx_baseline -j1
    PYTHONPATH=build/python /usr/bin/python3 benchmarks/python/bench_python.py \
        --cxx build/benchmarks/cxx_baseline [--sizes 100,1000] [--reps 5]

A rewrite figure is the median of --reps runs (of 3 at 30,000 steps and above, 1 for torch.fx
there); a partition figure the median of --reps rounds, Python and C++ in turn, of 20 * --reps
calls each.
"""
import argparse
import operator
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import graphpat.relay as relay
from graphpat.dpl import DFPatternCallback, is_constant, is_op, is_tuple_get_item, rewrite, wildcard

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODELS = ROOT / "tests" / "data" / "corpus" / "models"
SIZES = [100, 300, 1_000, 3_000, 10_000, 30_000, 100_000]


def median_seconds(run, reps):
    """The median wall time of `reps` calls of run(); also the last call's result."""
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def chain_text(steps):
    lines = ['#[version = "0.0.5"]', "def @main(%x: Tensor[(4), float32]) {"]
    last = "%x"
    for step in range(steps):
        lines += [f"  %{3 * step} = multiply({last}, 2f);",
                  f"  %{3 * step + 1} = add(%{3 * step}, 1f);",
                  f"  %{3 * step + 2} = nn.relu(%{3 * step + 1});"]
        last = f"%{3 * step + 2}"
    return "\n".join(lines + [f"  {last}", "}", ""])


class DoubleByAdding(DFPatternCallback):
    """relu(add(multiply(x, c), one)) -> relu(add(add(x, x), one))."""

    def __init__(self):
        super().__init__()
        self.x, self.one = wildcard(), is_constant()
        self.pattern = is_op("nn.relu")(is_op("add")(is_op("multiply")(self.x, is_constant()),
                                                     self.one))

    def callback(self, pre, post, node_map):
        x = node_map[self.x][0]
        return relay.call("nn.relu", relay.call("add", relay.call("add", x, x),
                                                node_map[self.one][0]))


def check_counts(steps, multiplies, adds, relus, side):
    if (multiplies, adds, relus) != (0, 2 * steps, steps):
        sys.exit(f"{side} rewrote {steps} steps wrongly: {multiplies} multiply, {adds} add, "
                 f"{relus} relu")


def graphpat_rewrite(steps, reps):
    module = relay.parse(chain_text(steps))
    seconds, out = median_seconds(lambda: rewrite(DoubleByAdding(), module), reps)
    text = out.astext()
    check_counts(steps, text.count("multiply("), text.count(" add("), text.count("nn.relu("),
                 "graphpat")
    return seconds


def cxx_rewrite(cxx, steps, reps):
    with tempfile.NamedTemporaryFile("w", suffix=".relay") as chain:
        chain.write(chain_text(steps))
        chain.flush()
        out = subprocess.run([cxx, "rewrite", chain.name, str(reps)], check=True,
                             capture_output=True, text=True).stdout.split()
    # `median_seconds s count n nodes m`: one root replaced per step.
    if int(out[3]) != steps:
        sys.exit(f"cxx_baseline rewrote {out[3]} of {steps} steps")
    return float(out[1])


def torch_chain(torch, steps):
    """The chain as a torch.fx GraphModule, built node by node with unique names: fx's own
    naming (symbolic_trace, or nodes left unnamed) tries base_1, base_2, ... for each new node,
    quadratic in the chain (symbolic_trace takes 34 s at 10,000 steps)."""
    import torch.fx as fx
    graph = fx.Graph()
    x = graph.placeholder("x")
    for step in range(steps):
        doubled = graph.create_node("call_function", operator.mul, (x, 2), name=f"mul{step}")
        plus_one = graph.create_node("call_function", operator.add, (doubled, 1), name=f"add{step}")
        x = graph.create_node("call_function", torch.relu, (plus_one,), name=f"relu{step}")
    graph.output(x)
    return fx.GraphModule(torch.nn.Module(), graph)


def torch_rewrite(torch, steps, reps):
    """Seconds of replace_pattern (median of `reps`, each on a fresh graph), or the name of the
    exception it raised."""
    import torch.fx as fx

    def pattern(x):
        return torch.relu(x * 2 + 1)

    def replacement(x):
        return torch.relu((x + x) + 1)

    times = []
    for _ in range(reps):
        module = torch_chain(torch, steps)
        start = time.perf_counter()
        try:
            fx.subgraph_rewriter.replace_pattern(module, pattern, replacement)
        except RecursionError:
            return "RecursionError"
        times.append(time.perf_counter() - start)
    targets = [node.target for node in module.graph.nodes if node.op == "call_function"]
    check_counts(steps, targets.count(operator.mul), targets.count(operator.add),
                 targets.count(torch.relu), "torch.fx")
    return statistics.median(times)


def seconds_and_per_node(seconds, nodes):
    if isinstance(seconds, str):
        return f"{seconds:>16} {'':>9}"
    return f"{seconds:16.4f} {seconds / nodes * 1e6:9.2f}"


def rewrite_table(cxx, sizes, reps):
    try:
        import torch
    except ImportError:
        torch = None
        print("torch is not installed: the torch.fx column is skipped")
    print("Rewrite relu(x*2+1) -> relu((x+x)+1) on a chain: total seconds and us per op node "
          "(3 op nodes per step)")
    print(f"{'steps':>8} {'torch.fx s':>16} {'us/node':>9} {'graphpat py s':>16} {'us/node':>9} "
          f"{'graphpat C++ s':>16} {'us/node':>9} {'Python cost us/callback':>24}")
    for steps in sizes:
        runs = reps if steps < 30_000 else min(reps, 3)
        nodes = 3 * steps
        fx_seconds = (torch_rewrite(torch, steps, runs if steps < 30_000 else 1)
                      if torch else "no torch")
        py_seconds = graphpat_rewrite(steps, runs)
        cxx_seconds = cxx_rewrite(cxx, steps, runs)
        print(f"{steps:8,} {seconds_and_per_node(fx_seconds, nodes)} "
              f"{seconds_and_per_node(py_seconds, nodes)} "
              f"{seconds_and_per_node(cxx_seconds, nodes)} "
              f"{(py_seconds - cxx_seconds) / steps * 1e6:24.2f}", flush=True)


def bn_relu():
    batch_norm = is_op("nn.batch_norm")(wildcard(), wildcard(), wildcard(), wildcard(), wildcard())
    return is_op("nn.relu")(is_tuple_get_item(batch_norm, 0))


def conv_bn():
    conv = is_op("nn.conv2d")(wildcard(), wildcard())
    return is_tuple_get_item(
        is_op("nn.batch_norm")(conv, wildcard(), wildcard(), wildcard(), wildcard()), 0)


def dense_bias_relu():
    return is_op("nn.relu")(is_op("nn.bias_add")(is_op("nn.dense")(wildcard(), wildcard()),
                                                 wildcard()))


PARTITIONS = [("mlp.relay", "dense_bias_relu", dense_bias_relu()),
              ("resnet18.relay", "bn_relu", bn_relu()),
              ("mobilenet_v2_mxnet_style.relay", "conv_bn", conv_bn())]


def partition_table(cxx, reps, rounds):
    """Python and C++ take turns, `rounds` times, so that both see the same load; each figure is
    the median over the rounds of the median of `reps` calls."""
    print("\npattern.partition from Python vs partition in C++ (the same pattern, compiled "
          "once on both sides), median us per call")
    print(f"{'model':>32} {'pattern':>16} {'groups':>6} {'Python us':>10} {'C++ us':>10} "
          f"{'Python cost us/call':>20}")
    for model, name, pattern in PARTITIONS:
        module = relay.parse((MODELS / model).read_text())
        py_rounds, cxx_rounds = [], []
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as text:
            text.write(pattern.text())
            text.flush()
            for _ in range(rounds):
                seconds, (_, report) = median_seconds(lambda: pattern.partition(module), reps)
                py_rounds.append(seconds)
                out = subprocess.run([cxx, "partition", str(MODELS / model), text.name,
                                      str(reps)], check=True, capture_output=True,
                                     text=True).stdout.split()
                cxx_rounds.append(float(out[1]))
        if int(out[3]) != report["accepted"]:
            sys.exit(f"{model}: C++ accepted {out[3]} groups, Python {report['accepted']}")
        py_us, cxx_us = statistics.median(py_rounds) * 1e6, statistics.median(cxx_rounds) * 1e6
        print(f"{model:>32} {name:>16} {report['accepted']:6} {py_us:10.1f} {cxx_us:10.1f} "
              f"{py_us - cxx_us:20.1f}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cxx", required=True, help="the cxx_baseline program")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)),
                        help="chain lengths in steps, comma-separated")
    parser.add_argument("--reps", type=int, default=5, help="runs per figure (median)")
    args = parser.parse_args()
    rewrite_table(args.cxx, [int(s) for s in args.sizes.split(",")], args.reps)
    partition_table(args.cxx, 20 * args.reps, args.reps)


if __name__ == "__main__":
    main()
