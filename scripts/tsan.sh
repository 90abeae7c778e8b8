#!/usr/bin/env bash
# ThreadSanitizer, proven to work: scripts/README.md explains each step.
#
#   1. Builds graft-stress with `swift build --sanitize=thread` (scratch path .build-tsan).
#   2. Runs the stress: 8 pthreads x 10,000 iterations (GRAFT_STRESS_ITERATIONS changes it), parent
#      and child synchronized views, every scope, Lazy and Provider handed between threads, weak
#      instances released concurrently. It must exit 0 with no ThreadSanitizer report:
#      halt_on_error=1 makes the first report end the process with 66.
#   3. Runs `graft-stress --planted-race` (a counter incremented by two threads without a lock) and
#      `--planted-race-container` (two threads resolving through one plain `Container`). Each MUST
#      exit 66 with a ThreadSanitizer report naming the planted function. If not, the sanitizer
#      setup is broken, and step 2 proved nothing: the script fails.
#   4. Asks whether `swift test --sanitize=thread` reports the same planted race, with the
#      GRAFT_PLANT_RACE=1 test in Tests/GraftTests/Support/SanitizerCanaryTests.swift, and then runs the
#      test suite under ThreadSanitizer in that proven setup. GRAFT_TSAN_SKIP_TESTS=1 skips 4.
#
# How `swift test --sanitize=thread` behaves here (Swift 6.3.1, Linux x86_64, 2 cores):
#   - It DOES report the planted race of step 4 (10 runs out of 10): that race is between two
#     threads (Foundation `Thread`s), which ThreadSanitizer judges by synchronization, not timing.
#   - The same race between two child tasks of a task group is reported only sometimes (8 of 10
#     `swift test` runs, 12 of 20 runs of an executable built with `swift build --sanitize=thread`):
#     when both tasks happen to run on one cooperative-pool thread, one after the other, they are
#     ordered for ThreadSanitizer and there is nothing to report. Hence every planted race here uses
#     real threads.
#   - Without halt_on_error, swift-testing still prints "Test run with N tests passed" after a
#     report: only the exit status (66 from the sanitizer, 1 from `swift test`) shows it. And a
#     `--filter` that matches nothing passes with 0 tests. This script checks exit statuses, the
#     report text, and that the planted test really ran.
set -euo pipefail
cd "$(dirname "$0")/.."

SCRATCH=.build-tsan
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1"
LOG_DIR="$SCRATCH/logs"
started=$SECONDS

pass() { echo "PASS: tsan: $*"; }
fail() { echo "FAIL: tsan: $*"; exit 1; }

mkdir -p "$LOG_DIR"

# 1. Build.
swift build --sanitize=thread --scratch-path "$SCRATCH" --product graft-stress \
    || fail "could not build graft-stress with --sanitize=thread"
STRESS="$SCRATCH/debug/graft-stress"

# 2. The stress: must pass, with no report.
status=0
"$STRESS" --iterations "${GRAFT_STRESS_ITERATIONS:-10000}" >"$LOG_DIR/stress.log" 2>&1 || status=$?
if [[ $status -ne 0 ]] || grep -q "ThreadSanitizer" "$LOG_DIR/stress.log"; then
    cat "$LOG_DIR/stress.log"
    [[ $status -eq 66 ]] && fail "ThreadSanitizer reported a race in the stress (exit 66, report above)"
    fail "the stress failed (exit $status, output above)"
fi
cat "$LOG_DIR/stress.log"
pass "stress: correct results, no ThreadSanitizer report"

# 3. The planted races: must be reported.
expect_report() {  # name, function the report must name, arguments...
    local name=$1 function=$2 log="$LOG_DIR/$1.log" status=0
    shift 2
    "$STRESS" "$@" >"$log" 2>&1 || status=$?
    if [[ $status -eq 66 ]] && grep -q "WARNING: ThreadSanitizer" "$log" && grep -q "$function" "$log" \
        && grep -q "graft-stress: stress OK" "$log"; then
        pass "$name: reported as it must be ($(grep -m1 '^SUMMARY: ThreadSanitizer' "$log"))"
    else
        cat "$log"
        fail "$name: NOT reported (exit $status): ThreadSanitizer does not work in this setup"
    fi
}
expect_report planted-race plantedRaceOnSharedVariable --iterations 1 --planted-race
expect_report planted-race-container plantedRaceOnPlainContainer --iterations 1 --planted-race-container

# 4. swift test under ThreadSanitizer: does it report the same planted race? Then the suite. The
#    same proof as asan.sh's step 2, for ThreadSanitizer: each script runs on its own.
if [[ "${GRAFT_TSAN_SKIP_TESTS:-0}" != 1 ]]; then
    swift build --build-tests --sanitize=thread --scratch-path "$SCRATCH" \
        || fail "could not build the tests with --sanitize=thread"
    log="$LOG_DIR/swift-test-planted-race.log"
    status=0
    GRAFT_PLANT_RACE=1 swift test --skip-build --sanitize=thread --scratch-path "$SCRATCH" \
        --filter SanitizerCanaryTests >"$log" 2>&1 || status=$?
    if [[ $status -ne 0 ]] && grep -q "Test plantedDataRace() started" "$log" \
        && grep -q "WARNING: ThreadSanitizer" "$log" && grep -q "plantedDataRace" "$log"; then
        pass "swift test --sanitize=thread reports the planted race ($(grep -m1 '^SUMMARY: ThreadSanitizer' "$log"))"
    else
        cat "$log"
        fail "swift test --sanitize=thread did NOT report the planted race (exit $status)"
    fi

    log="$LOG_DIR/swift-test.log"
    status=0
    # Skipped: a chain of resolutions on a 512 KB thread stack, which sanitized frames overflow;
    # and the resolutions (and a registration beside one) made through one plain container from two
    # threads at once on purpose, to see Graft stop the program with its message: ThreadSanitizer may
    # stop at that race first; and resident memory
    # measured over 100,000 dropped hierarchies, which the sanitizer's shadow memory inflates.
    # 200 model-based programs, not 1,000 (scripts/release-tests.sh runs 20,000): under the sanitizer the
    # long synchronous tests hold the cooperative pool's threads for minutes, and the asynchronous
    # tests' 60-second bounds have run out while they did.
    GRAFT_MODEL_PROGRAMS=200 swift test --skip-build --sanitize=thread --scratch-path "$SCRATCH" \
        --skip 'deepChainWithArgumentsFitsASmallThreadStack|aRegistrationOnASecondThreadStops|aSecondThreadStops|droppedHierarchiesWhoseChildrenRegisteredLeaveMemoryFlat' \
        >"$log" 2>&1 || status=$?
    if [[ $status -ne 0 ]] || grep -q "ThreadSanitizer" "$log"; then
        grep -E -A40 "WARNING: ThreadSanitizer|✘" "$log" | head -120 || true
        fail "the test suite under ThreadSanitizer (exit $status; full log: $log)"
    fi
    pass "test suite: $(grep -m1 -E 'Test run with [0-9]+ tests' "$log" | sed 's/^[^A-Za-z]*//'), no ThreadSanitizer report"
fi

echo "PASS: tsan: all checks in $((SECONDS - started))s"
