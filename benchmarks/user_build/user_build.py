#!/usr/bin/env python3
"""What a user's file costs to compile (issue 24's build goal): user_file.cpp, which calls
parse_text, parse_pattern and partition, compiled header-only and against graphpat::compiled
(-DGRAPHPAT_COMPILED: the entry functions' declarations only), beside the floor of the
dependencies' own headers (dependencies_floor.cpp). Median wall time of --runs compiles and
the compiler's peak resident memory, in the same run.

  python3 benchmarks/user_build/user_build.py [--cxx g++] [--runs 3] [--out FILE]

The compile only (-c): the consumer test (scripts/run_consumer_test.sh) links and runs README's
examples both ways.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
INCLUDE = os.path.join(HERE, "..", "..", "include")

# (name, source, flags, goal in seconds, goal in MB); None: no goal.
CASES = [
    ("header-only -O2", "user_file.cpp", ["-O2"], 8.0, 500.0),
    ("header-only -O0", "user_file.cpp", ["-O0"], None, None),
    ("graphpat::compiled -O2", "user_file.cpp", ["-O2", "-DGRAPHPAT_COMPILED"], 3.0, None),
    ("dependencies' floor -O2", "dependencies_floor.cpp", ["-O2"], None, None),
]


def compile_once(cxx, source, flags, output):
    """Wall seconds and peak resident MB of one compile (the compiler's largest process)."""
    command = [cxx, "-std=c++20", *flags, "-I", INCLUDE, "-c", os.path.join(HERE, source), "-o",
               output]
    start = time.monotonic()
    process = subprocess.Popen(command)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.monotonic() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"user_build: compile failed: {' '.join(command)}")
    return seconds, usage.ru_maxrss / 1024.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", help="also write the figures as JSON")
    args = parser.parse_args()

    results = []
    with tempfile.TemporaryDirectory() as scratch:
        output = os.path.join(scratch, "user.o")
        for name, source, flags, goal_seconds, goal_mb in CASES:
            samples = [compile_once(args.cxx, source, flags, output) for _ in range(args.runs)]
            seconds = statistics.median(s for s, _ in samples)
            megabytes = max(m for _, m in samples)
            results.append({"case": name, "seconds": round(seconds, 2),
                            "peak_mb": round(megabytes), "goal_seconds": goal_seconds,
                            "goal_mb": goal_mb})

    print(f"{'case':<26} {'s':>7} {'peak MB':>8}  goal")
    for r in results:
        goals = []
        if r["goal_seconds"] is not None:
            met = r["seconds"] <= r["goal_seconds"]
            goals.append(f"<= {r['goal_seconds']:g} s {'met' if met else 'not met'}")
        if r["goal_mb"] is not None:
            met = r["peak_mb"] <= r["goal_mb"]
            goals.append(f"<= {r['goal_mb']:g} MB {'met' if met else 'not met'}")
        print(f"{r['case']:<26} {r['seconds']:>7.2f} {r['peak_mb']:>8}  {', '.join(goals) or '-'}")
    print(f"({args.cxx}, median of {args.runs} compiles each, peak of the compiler's process)")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as out:
            json.dump({"compiler": args.cxx, "runs": args.runs, "results": results}, out, indent=1)
            out.write("\n")


if __name__ == "__main__":
    main()
