#!/usr/bin/env bash
# Counts the lines of code of each library target (Sources/Graft, Sources/GraftTesting): lines
# with code on them, not blank lines nor comments (`//`, `///`, `/* ... */`), and not the
# generated fixed-arity overloads (Sources/Graft/Compatibility/Resolver+FixedArity.swift, written
# by scripts/generate-fixed-arity.py). Counted as `swift format` leaves the sources. Prints one
# line per target and the total; always succeeds (the count is reported, not gated).
#   scripts/count-lines.sh          the working tree
#   scripts/count-lines.sh DIR      the Swift sources under DIR instead (one count)
set -euo pipefail
cd "$(dirname "$0")/.."

python3 - "$@" <<'PYTHON'
import os
import sys

GENERATED = {os.path.join("Sources", "Graft", "Compatibility", "Resolver+FixedArity.swift")}


def code_lines(text):
    """Lines holding code: a character outside a comment that is not white space."""
    count = 0
    in_block = 0  # nesting depth of /* */ comments (Swift nests them)
    in_multiline_string = False
    for line in text.splitlines():
        has_code = False
        i = 0
        while i < len(line):
            if in_block:
                if line.startswith("/*", i):
                    in_block += 1
                    i += 2
                elif line.startswith("*/", i):
                    in_block -= 1
                    i += 2
                else:
                    i += 1
                continue
            if in_multiline_string:
                has_code = True
                if line.startswith('"""', i):
                    in_multiline_string = False
                    i += 3
                else:
                    i += 1
                continue
            if line.startswith("//", i):
                break
            if line.startswith("/*", i):
                in_block = 1
                i += 2
                continue
            if line.startswith('"""', i):
                in_multiline_string = True
                has_code = True
                i += 3
                continue
            character = line[i]
            if character == '"':  # a one-line string: skip to its end, escapes included
                has_code = True
                i += 1
                while i < len(line) and line[i] != '"':
                    i += 2 if line[i] == "\\" else 1
                i += 1
                continue
            if not character.isspace():
                has_code = True
            i += 1
        if has_code:
            count += 1
    return count


def count(directory):
    total = 0
    for root, _, files in os.walk(directory):
        for name in files:
            path = os.path.join(root, name)
            if name.endswith(".swift") and os.path.relpath(path) not in GENERATED:
                with open(path, encoding="utf-8") as source:
                    total += code_lines(source.read())
    return total


if len(sys.argv) > 1:
    print(f"lines of code: {sys.argv[1]}: {count(sys.argv[1])}")
else:
    targets = [os.path.join("Sources", "Graft"), os.path.join("Sources", "GraftTesting")]
    counts = [count(target) for target in targets]
    for target, lines in zip(targets, counts):
        print(f"lines of code: {target}: {lines}")
    print(f"lines of code: library total: {sum(counts)} (no comments, blank lines, or generated sources)")
PYTHON
