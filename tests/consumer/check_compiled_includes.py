#!/usr/bin/env python3
"""Checks that a user's file of graphpat::compiled (-DGRAPHPAT_COMPILED) that includes the entry
headers cse.hpp, partition.hpp, pattern.hpp and io/relay_text.hpp reads none of the engine
headers, whose definitions the library holds (include/graphpat/detail/linkage.hpp), and that
the same file header-only reads every one of them (so the list below names real headers).

usage: check_compiled_includes.py CXX INCLUDE_DIR   exit 0 when both hold, 1 otherwise
"""
import os
import subprocess
import sys
import tempfile

ENTRY_HEADERS = ["graphpat/cse.hpp", "graphpat/partition.hpp", "graphpat/pattern.hpp",
                 "graphpat/io/relay_text.hpp"]
ENGINE_HEADERS = [
    "graphpat/transform/cse.hpp",
    "graphpat/transform/partition.hpp",
    "graphpat/transform/partition/grouper.hpp",
    "graphpat/transform/graph_partition.hpp",
    "graphpat/transform/merge_composite.hpp",
    "graphpat/pattern/matcher.hpp",
    "graphpat/pattern/graph_matcher.hpp",
    "graphpat/pattern/explain.hpp",
    "graphpat/io/relay_text/parser.hpp",
]


def headers_read(cxx, include_dir, source, flags):
    """The graphpat headers the compiler reads for `source`, relative to `include_dir`."""
    output = subprocess.run([cxx, "-std=c++20", *flags, "-I", include_dir, "-M", source],
                            check=True, capture_output=True, text=True).stdout
    root = os.path.realpath(include_dir) + os.sep
    paths = output.replace("\\\n", " ").split()
    return {os.path.realpath(p)[len(root):] for p in paths
            if os.path.realpath(p).startswith(root)}


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    cxx, include_dir = argv[1], argv[2]
    with tempfile.TemporaryDirectory() as scratch:
        source = os.path.join(scratch, "user.cpp")
        with open(source, "w", encoding="utf-8") as f:
            f.writelines(f"#include <{header}>\n" for header in ENTRY_HEADERS)
        compiled = headers_read(cxx, include_dir, source, ["-DGRAPHPAT_COMPILED"])
        header_only = headers_read(cxx, include_dir, source, [])
    failures = [f"with GRAPHPAT_COMPILED the file reads {h}" for h in ENGINE_HEADERS
                if h in compiled]
    failures += [f"header-only the file does not read {h}" for h in ENGINE_HEADERS
                 if h not in header_only]
    for failure in failures:
        print(failure)
    if not failures:
        print(f"compiled mode: {len(compiled)} graphpat headers, none of the {len(ENGINE_HEADERS)} "
              f"engine headers; header-only: {len(header_only)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
