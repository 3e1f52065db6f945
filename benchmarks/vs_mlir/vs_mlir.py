#!/usr/bin/env python3
"""Whole-process CSE against MLIR (issue 24): `mlir-opt-16 --cse` on an MLIR function and
`graphpat cse` on the same DAG as Relay text, each parse + CSE + print + write as one process,
alternating, median of --runs; then each tool's phases (`--mlir-timing`, `graphpat --phases`)
and peak resident memory.

  python3 benchmarks/vs_mlir/vs_mlir.py --graphpat build-release/examples/graphpat
      [--ops 300000] [--runs 5] [--mlir-opt mlir-opt-16] [--out FILE]

The DAG (the one the issue timed mlir-opt on): --ops / 3 steps, each two identical adds
of the last two steps' values (one a duplicate for CSE to merge) and a multiply joining them.
mlir-opt-16 is Debian's mlir-16-tools.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def write_dag(steps, mlir_path, relay_path):
    """The same DAG (same ops, same sharing) as an MLIR func and as Relay text."""
    with open(mlir_path, "w") as mlir, open(relay_path, "w") as relay:
        mlir.write("func.func @main(%a: f32, %b: f32) -> f32 {\n")
        relay.write('#[version = "0.0.5"]\ndef @main(%a: float32, %b: float32) -> float32 {\n')
        m_prev, m_prev2 = "%a", "%b"
        r_prev, r_prev2 = "%a", "%b"
        for i in range(steps):
            k = 3 * i
            mlir.write(f"  %x{i} = arith.addf {m_prev}, {m_prev2} : f32\n"
                       f"  %y{i} = arith.addf {m_prev}, {m_prev2} : f32\n"
                       f"  %z{i} = arith.mulf %x{i}, %y{i} : f32\n")
            relay.write(f"  %{k} = add({r_prev}, {r_prev2});\n"
                        f"  %{k + 1} = add({r_prev}, {r_prev2});\n"
                        f"  %{k + 2} = multiply(%{k}, %{k + 1});\n")
            m_prev2, m_prev = m_prev, f"%z{i}"
            r_prev2, r_prev = r_prev, f"%{k + 2}"
        mlir.write(f"  return {m_prev} : f32\n}}\n")
        relay.write(f"  {r_prev}\n}}\n")


def run(command):
    """Wall seconds, peak resident MB and stderr of one process."""
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"vs_mlir: failed: {' '.join(command)}\n{stderr}")
    return seconds, usage.ru_maxrss / 1024.0, stderr


def mlir_phases(stderr):
    """Parser / CSE / Output seconds from --mlir-timing's report."""
    phases = {}
    for line in stderr.splitlines():
        found = re.match(r"\s*([0-9.]+) \(\s*[0-9.]+%\)\s+(Parser|CSE|Output)\s*$", line)
        if found:
            phases[found.group(2)] = float(found.group(1))
    return phases


def graphpat_phases(stderr):
    """Each `graphpat: phase NAME: S s wall` line's seconds, by the phase's first word."""
    phases = {}
    for line in stderr.splitlines():
        found = re.match(r"graphpat: phase (\w+).*: ([0-9.]+) s wall", line)
        if found:
            phases[found.group(1)] = float(found.group(2))
    return phases


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphpat", required=True, help="the graphpat CLI (a Release build)")
    parser.add_argument("--mlir-opt", default="mlir-opt-16")
    parser.add_argument("--ops", type=int, default=300000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", help="also write the figures as JSON")
    args = parser.parse_args()
    if shutil.which(args.mlir_opt) is None:
        sys.exit(f"vs_mlir: {args.mlir_opt} not found (Debian: apt-get install mlir-16-tools)")

    with tempfile.TemporaryDirectory() as scratch:
        mlir_in, relay_in = os.path.join(scratch, "dag.mlir"), os.path.join(scratch, "dag.relay")
        write_dag(args.ops // 3, mlir_in, relay_in)
        mlir_cmd = [args.mlir_opt, "--cse", mlir_in, "-o", os.path.join(scratch, "out.mlir")]
        graphpat_cmd = [args.graphpat, "cse", relay_in, "-o", os.path.join(scratch, "out.relay")]
        samples = {"mlir-opt --cse": [], "graphpat cse": []}
        for _ in range(args.runs):
            samples["mlir-opt --cse"].append(run(mlir_cmd)[:2])
            samples["graphpat cse"].append(run(graphpat_cmd)[:2])
        mlir_split = mlir_phases(run(mlir_cmd[:1] + ["--mlir-timing"] + mlir_cmd[1:])[2])
        graphpat_split = graphpat_phases(run([args.graphpat, "--phases"] + graphpat_cmd[1:])[2])
        input_mb = {"mlir": os.path.getsize(mlir_in) / 1e6, "relay": os.path.getsize(relay_in) / 1e6}

    figures = {name: {"seconds": statistics.median(s for s, _ in runs),
                      "peak_mb": max(m for _, m in runs)} for name, runs in samples.items()}
    ratio = figures["mlir-opt --cse"]["seconds"] / figures["graphpat cse"]["seconds"]
    print(f"whole process, {args.ops} ops (inputs: MLIR {input_mb['mlir']:.1f} MB, Relay "
          f"{input_mb['relay']:.1f} MB), median of {args.runs}, alternating:")
    for name, figure in figures.items():
        print(f"  {name:16} {figure['seconds']:8.3f} s   peak {figure['peak_mb']:7.1f} MB")
    print(f"  ratio mlir / graphpat: {ratio:.2f} (issue 24's goal: >= 10)")
    print("phases (one more run each, seconds): mlir-opt " +
          ", ".join(f"{k} {v:.3f}" for k, v in mlir_split.items()))
    print("                                     graphpat " +
          ", ".join(f"{k} {v:.3f}" for k, v in graphpat_split.items()))
    if args.out:
        with open(args.out, "w") as out:
            json.dump({"ops": args.ops, "runs": args.runs, "figures": figures, "ratio": ratio,
                       "phases": {"mlir": mlir_split, "graphpat": graphpat_split},
                       "input_mb": input_mb}, out, indent=2)


if __name__ == "__main__":
    main()
