#!/usr/bin/env bash
# The threaded and async suites, run again and again while a second `swift test` of the whole
# package keeps the machine busy: a concurrency test that passes only on a quiet machine (one that
# waits for a duration, or bounds a wait too tightly) fails here. Not a step of .ci/run, which
# runs the suite once on a quiet machine; run it after changing a concurrency test or the code
# one covers.
#
#   scripts/tests-under-load.sh [rounds]    rounds of the suites (default 20)
#
# The suites: every suite in Tests/GraftTests/Concurrency, and every suite in a test file that
# starts threads or tasks of its own. The load: the whole package's `swift test`, in a loop, from
# a build directory of its own (.build-load). Each round's log goes to .build/under-load/.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-20}

suites=$( (ls Tests/GraftTests/Concurrency/*.swift
    grep -rlE 'Thread\(|DispatchQueue|TaskGroup|Task\.detached|concurrentPerform|pthread_create' Tests) \
    | sort -u | xargs grep -hoE '^(@[A-Za-z]+(\([^)]*\))? )*struct [A-Za-z0-9_]+Tests\b' \
    | sed -E 's/.*struct //' | sort -u | paste -sd'|' -)
echo "tests-under-load: $(tr '|' '\n' <<<"$suites" | wc -l) suites, $rounds rounds, beside the whole suite in a loop"

swift build --build-tests >/dev/null
swift build --build-tests --scratch-path .build-load >/dev/null
mkdir -p .build/under-load
setsid bash -c 'while :; do swift test --skip-build --scratch-path .build-load >/dev/null 2>&1; done' &
load=$!
trap 'kill -- -"$load" 2>/dev/null || true' EXIT

failed=0
for round in $(seq "$rounds"); do
    log=.build/under-load/round-$round.log
    started=$SECONDS
    if swift test --skip-build --filter "\.($suites)/" >"$log" 2>&1; then
        echo "round $round: $(grep -oE 'Test run with [0-9]+ tests' "$log" | tail -1), passed ($((SECONDS - started)) s)"
    else
        failed=$((failed + 1))
        echo "round $round: FAILED ($((SECONDS - started)) s): $log"
        grep -E '✘' "$log" | head -10
    fi
done
[ "$failed" -eq 0 ] || { echo "FAIL: tests under load: $failed of $rounds rounds failed"; exit 1; }
echo "PASS: tests under load: $rounds rounds, no failure"
