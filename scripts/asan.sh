#!/usr/bin/env bash
# AddressSanitizer, proven to work: scripts/README.md explains each step.
#
#   scripts/asan.sh            every test, with 5,000 model-based programs
#                              (GRAFT_MODEL_PROGRAMS changes it)
#   scripts/asan.sh FILTER     the tests matching FILTER (as `swift test --filter`)
#
#   1. Builds the tests with `swift build --build-tests --sanitize=address` (scratch .build-asan).
#   2. Runs the planted heap use-after-free in Tests/GraftTests/Support/SanitizerCanaryTests.swift
#      (GRAFT_PLANT_USE_AFTER_FREE=1). It MUST stop the test process with an AddressSanitizer
#      heap-use-after-free report naming the planted test; if not, ASan does not work in this
#      setup and step 3 would prove nothing: the script fails.
#   3. Runs the selected tests from the same build. They must pass with no AddressSanitizer report,
#      and at least one test must have run (a filter matching nothing would otherwise "pass").
#
# Skipped: GraphTests.memoryStaysFlatOverManyGraphResolutions and
# HierarchyLifetimeTests.droppedHierarchiesWhoseChildrenRegisteredLeaveMemoryFlat measure resident memory, which
# ASan inflates on purpose (freed blocks wait in its quarantine instead of being reused); and
# ResolutionDepthTests.deepChainWithArgumentsFitsASmallThreadStack, whose 512 KB thread stack is sized
# for unsanitized frames.
#
# Leak detection is off (detect_leaks=0): LeakSanitizer fails every `swift test` run here on 144
# bytes that XCTest itself never frees, and the suite builds reference cycles on purpose (factories
# capturing their container, circular-dependency tests). GRAFT_ASAN_DETECT_LEAKS=1 turns it on,
# with XCTest's own leak suppressed (scripts/lsan.supp), to look at the rest. Leaks of the library
# itself are checked by scripts/lsan.sh, over a standalone program.
set -euo pipefail
cd "$(dirname "$0")/.."

SCRATCH=.build-asan
LOG_DIR="$SCRATCH/logs"
started=$SECONDS
if [[ "${GRAFT_ASAN_DETECT_LEAKS:-0}" == 1 ]]; then
    export ASAN_OPTIONS="halt_on_error=1 detect_leaks=1"
    export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp"
else
    export ASAN_OPTIONS="halt_on_error=1 detect_leaks=0"
fi

if [[ $# -ge 1 ]]; then
    FILTER=(--filter "$1")
else
    FILTER=()
fi
# More model-based programs than a plain `swift test` runs, without their logging check (the
# plain suite runs it). The 20,000 from seed 1 run optimized, in scripts/release-tests.sh, where
# each costs a fraction of what it costs here.
export GRAFT_MODEL_PROGRAMS="${GRAFT_MODEL_PROGRAMS:-5000}"
export GRAFT_MODEL_LOGS="${GRAFT_MODEL_LOGS:-0}"

pass() { echo "PASS: asan: $*"; }
fail() { echo "FAIL: asan: $*"; exit 1; }

mkdir -p "$LOG_DIR"

# 1. Build.
swift build --build-tests --sanitize=address --scratch-path "$SCRATCH" \
    || fail "could not build the tests with --sanitize=address"

# 2. The planted use-after-free: must be reported. The same proof as tsan.sh's step 4, for
#    AddressSanitizer: each script runs on its own.
log="$LOG_DIR/planted-use-after-free.log"
status=0
GRAFT_PLANT_USE_AFTER_FREE=1 swift test --skip-build --sanitize=address --scratch-path "$SCRATCH" \
    --filter SanitizerCanaryTests >"$log" 2>&1 || status=$?
if [[ $status -ne 0 ]] && grep -q "Test plantedHeapUseAfterFree() started" "$log" \
    && grep -q "ERROR: AddressSanitizer: heap-use-after-free" "$log" && grep -q "plantedHeapUseAfterFree" "$log"; then
    pass "planted heap use-after-free: reported as it must be ($(grep -m1 '^SUMMARY: AddressSanitizer' "$log"))"
else
    cat "$log"
    fail "planted heap use-after-free NOT reported (exit $status): AddressSanitizer does not work in this setup"
fi

# 3. The tests.
# The whole suite runs in two parts: the 5,000 model-based programs keep both cores busy for
# minutes under AddressSanitizer, and the async tests' bounded waits beside them would time out.
log="$LOG_DIR/tests.log"
status=0
: >"$log"
if [[ ${#FILTER[@]} -eq 0 ]]; then
    PARTS=("--skip ModelBasedTests" "--filter ModelBasedTests")
else
    PARTS=("")
fi
for part in "${PARTS[@]}"; do
    # shellcheck disable=SC2086  # `part` is one or two words, or none
    swift test --skip-build --sanitize=address --scratch-path "$SCRATCH" "${FILTER[@]}" $part \
        --skip memoryStaysFlatOverManyGraphResolutions --skip droppedHierarchiesWhoseChildrenRegisteredLeaveMemoryFlat \
        --skip deepChainWithArgumentsFitsASmallThreadStack >>"$log" 2>&1 || status=$?
done
if [[ $status -ne 0 ]] || grep -q "AddressSanitizer\|LeakSanitizer" "$log"; then
    grep -E -A40 "ERROR: (Address|Leak)Sanitizer|✘|error:" "$log" | head -150 || true
    fail "tests under AddressSanitizer (exit $status; full log: $log)"
fi
xctests=$(grep -E -o 'Executed [0-9]+ tests?' "$log" | awk '{ n += $2 } END { print n + 0 }')
swifttests=$(grep -E -o 'Test run with [0-9]+ tests?' "$log" | awk '{ n += $4 } END { print n + 0 }')
if [[ $((xctests + swifttests)) -eq 0 ]]; then
    cat "$log"
    fail "no test ran (${FILTER[*]:-no filter})"
fi
pass "tests (${FILTER[*]:-whole suite}): $swifttests swift-testing and $xctests XCTest tests passed, no AddressSanitizer report"
echo "PASS: asan: all checks in $((SECONDS - started))s"
