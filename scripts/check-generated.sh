#!/usr/bin/env bash
# Re-runs the generators of generated sources and fails if the committed files differ from their
# output, so a hand edit of a generated file (or a generator change without its output) is caught.
#   Sources/Graft/Compatibility/Resolver+FixedArity.swift   scripts/generate-fixed-arity.py
# The output is compared with the index (git diff). Unstaged changes to these files fail the check
# before the generator runs, so it never overwrites them: stage or commit them first.
set -euo pipefail
cd "$(dirname "$0")/.."

GENERATED=Sources/Graft/Compatibility
if ! git diff --quiet -- "$GENERATED"; then
    git diff --stat -- "$GENERATED"
    echo "FAIL: generated: $GENERATED has unstaged changes; the generator would overwrite them."
    echo "      Edit scripts/generate-fixed-arity.py instead, or stage the output of running it."
    exit 1
fi
python3 scripts/generate-fixed-arity.py >/dev/null
if ! git diff --exit-code -- "$GENERATED"; then
    echo "FAIL: generated: $GENERATED differs from its generator's output (diff above, - is the index)."
    echo "      Edit scripts/generate-fixed-arity.py, not the generated file, run it, and commit both."
    exit 1
fi
echo "PASS: generated: $GENERATED matches scripts/generate-fixed-arity.py"
