#!/bin/sh
# Builds the libFuzzer target (Fuzz/) with -sanitize=fuzzer,address and runs it for SECONDS
# (default 60). Bytes decode into model-based programs run on Graft and checked against the
# reference model; a crash or a mismatch is a finding, saved as .build-fuzz/findings/crash-*.
# The run continues after findings (fork mode); set FUZZ_STOP_AT_FIRST=1 to stop at the first.
# Reproduce one: .build-fuzz/graft-fuzz .build-fuzz/findings/crash-<hash>
# Usage: scripts/fuzz.sh [SECONDS]
set -eu
cd "$(dirname "$0")/.."
SECONDS_TO_RUN="${1:-60}"
OUT=.build-fuzz
SANITIZE="${FUZZ_SANITIZE:-fuzzer,address}"
mkdir -p "$OUT/corpus" "$OUT/findings"
# Graft itself without optimization, so its debug invariant checks (`assert`) run on every input.
swiftc -swift-version 6 -parse-as-library -module-name Graft -package-name Graft -wmo -Onone -gline-tables-only -sanitize="$SANITIZE" -warnings-as-errors \
    -emit-module -emit-module-path "$OUT/Graft.swiftmodule" -c -o "$OUT/Graft.o" $(find Sources/Graft -name '*.swift' | sort)
# The entry point (Fuzz/) and the model-based program, model and interpreter, compiled from their one
# copy in Tests/GraftTests/ModelBased. From inside $OUT, so the files the driver writes beside the
# executable stay out of the tree.
MODEL=../Tests/GraftTests/ModelBased
(cd "$OUT" && swiftc -swift-version 6 -parse-as-library -module-name GraftFuzz -package-name Graft -wmo -O -g -sanitize="$SANITIZE" \
    -warnings-as-errors -I . ../Fuzz/*.swift "$MODEL/Program.swift" "$MODEL/ReferenceModel.swift" \
    "$MODEL/GraftInterpreter.swift" Graft.o -o graft-fuzz)
if [ "${FUZZ_STOP_AT_FIRST:-0}" = 1 ]; then
    MODE=""
else
    MODE="-fork=1 -ignore_crashes=1"
fi
# Programs form reference cycles on purpose (initCompleted), which ARC never frees: no leak checks.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
# shellcheck disable=SC2086
exec "$OUT/graft-fuzz" $MODE -detect_leaks=0 -max_total_time="$SECONDS_TO_RUN" -max_len=256 -timeout=10 \
    -artifact_prefix="$OUT/findings/" "$OUT/corpus"
