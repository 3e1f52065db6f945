#!/usr/bin/env python3
"""Checks that every ```cpp block of README.md stands in one of the given sources: its #include
lines anywhere in the file, its other lines one after the other (indentation aside), so that the
consumer test (or the benchmark build) compiles the README's examples as they are written.

usage: check_readme.py README.md SOURCE...   exit 0 when every block is found, 1 otherwise
"""
import re
import sys


def blocks(readme):
    return re.findall(r"^```cpp\n(.*?)^```", readme, flags=re.S | re.M)


def stands_in(block, source):
    lines = [line.strip() for line in block.splitlines() if line.strip()]
    code = [line for line in lines if not line.startswith("#include")]
    source_lines = [line.strip() for line in source.splitlines()]
    if any(line not in source_lines for line in lines if line.startswith("#include")):
        return False
    return any(source_lines[i:i + len(code)] == code for i in range(len(source_lines)))


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        readme = f.read()
    sources = {}
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            sources[path] = f.read()
    missing = 0
    for number, block in enumerate(blocks(readme), 1):
        homes = [path for path, text in sources.items() if stands_in(block, text)]
        first = block.strip().splitlines()[0]
        if homes:
            print(f"README block {number} ({first}): in {homes[0]}")
        else:
            print(f"README block {number} ({first}): in none of {', '.join(sources)}")
            missing += 1
    print(f"{len(blocks(readme)) - missing} passed, {missing} failed")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
