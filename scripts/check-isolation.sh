#!/usr/bin/env bash
# The compiler enforces main-actor isolation of `resolveMain` and `@MainInjected`:
# type-checks, against the Graft module `swift build` produced, files that misuse them (each must
# be refused, with an isolation error) and a file that uses them correctly (must compile).
set -euo pipefail
cd "$(dirname "$0")/.."

swift build --target Graft >/dev/null
modules="$(swift build --show-bin-path)/Modules"
check() { swiftc -typecheck -swift-version 6 -I "$modules" "$1" 2>&1; }

for misuse in scripts/isolation/misuse-*.swift; do
    if output=$(check "$misuse"); then
        echo "FAIL: isolation: $misuse compiled; the compiler should refuse it"
        exit 1
    fi
    if ! grep -qiE "main actor|MainActor|actor-isolated" <<<"$output"; then
        echo "FAIL: isolation: $misuse was refused, but not for isolation:"
        echo "$output"
        exit 1
    fi
    echo "PASS: isolation: $misuse refused: $(grep -m1 -E 'error:' <<<"$output" | sed 's/.*error: //')"
done
if ! output=$(check scripts/isolation/correct-use.swift); then
    echo "FAIL: isolation: scripts/isolation/correct-use.swift does not compile:"
    echo "$output"
    exit 1
fi
echo "PASS: isolation: scripts/isolation/correct-use.swift compiles"
