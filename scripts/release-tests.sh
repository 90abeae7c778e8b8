#!/usr/bin/env bash
# The test suite built with optimization (-c release), as applications run Graft.
#
# Debug builds check every invariant, but the optimizer may move a store to an
# `@exclusivity(unchecked)` field past a release whose `deinit` reads it again: a double release
# that only optimized builds have (Documentation/Internals/Reentrancy.md, "Fields unchecked for exclusivity"). This run
# catches such differences. `-enable-testing` lets the tests use `@testable import`.
#
# The suite runs 20,000 model-based programs here (GRAFT_MODEL_PROGRAMS changes it), not 1,000:
# optimized they are cheap, where a sanitizer multiplies their cost.
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH=.build-release-tests
started=$SECONDS
swift build -c release --build-tests -Xswiftc -enable-testing --scratch-path "$SCRATCH"
log="$SCRATCH/release-tests.log"
status=0
GRAFT_MODEL_PROGRAMS="${GRAFT_MODEL_PROGRAMS:-20000}" swift test -c release -Xswiftc -enable-testing --skip-build --scratch-path "$SCRATCH" >"$log" 2>&1 || status=$?
summary=$(grep -m1 -E 'Test run with [0-9]+ tests' "$log" | sed 's/^[^A-Za-z]*//' || true)
if [[ $status -ne 0 ]] || ! grep -q -E 'Test run with [0-9]+ tests .*passed' "$log"; then
    grep -E -B2 -A20 "✘|Fatal|error:|signal" "$log" | head -80 || true
    echo "FAIL: release tests (exit $status; full log: $log)"
    exit 1
fi
echo "PASS: release tests: $summary ($((SECONDS - started))s)"
