#!/bin/sh
# Runs N seeded model-based programs (default 1000) on Graft and on Swinject 2.10.0 and compares
# them step by step; prints a summary grouped by kind, each with a minimized program.
# Exit status: 0 when every difference is an intended one (listed in Differential/Sources/differential/main.swift).
# Usage: scripts/differential.sh [N] [FIRST_SEED]
set -eu
cd "$(dirname "$0")/.."
N="${1:-1000}"
SEED="${2:-1}"
swift build -c release --package-path Differential --scratch-path Differential/.build -Xswiftc -warnings-as-errors
exec timeout "${DIFF_TIMEOUT:-1200}" Differential/.build/release/differential "$N" "$SEED"
