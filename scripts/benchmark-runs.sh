#!/usr/bin/env bash
# Runs the timed benchmarks (Benchmarks/, release) several times and prints the tables
# Benchmarks/README.md shows: the first run's figures, each ratio with its range over all runs.
#   scripts/benchmark-runs.sh        three runs
#   scripts/benchmark-runs.sh N      N runs
#   GRAFT_BENCH_REUSE=1 scripts/benchmark-runs.sh N   the tables of the N runs already kept
# Each run's full output is kept in .build-bench/run-K.txt. Times move from run to run on a shared
# machine; the ranges say by how much.
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-3}
SCRATCH=.build-bench
mkdir -p "$SCRATCH"
if [ "${GRAFT_BENCH_REUSE:-0}" != 1 ]; then
swift build -c release --package-path Benchmarks >"$SCRATCH/build.log" 2>&1 || { cat "$SCRATCH/build.log"; exit 1; }
BINARY="$(swift build -c release --package-path Benchmarks --show-bin-path)/GraftBenchmarks"
for run in $(seq 1 "$runs"); do
    echo "run $run of $runs (load average: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    "$BINARY" >"$SCRATCH/run-$run.txt"
done
fi

python3 - "$SCRATCH" "$runs" <<'PY'
import re, sys
scratch, runs = sys.argv[1], int(sys.argv[2])

def tables(path):
    """Every markdown table of one run, by the heading above it: {heading: [row cells]}."""
    found, heading = {}, None
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("## "):
            heading = line[3:]
        elif line.startswith("|") and heading and not line.startswith("| ---"):
            found.setdefault(heading, []).append([c.strip() for c in line.strip("|").split("|")])
    return found

def by_prefix(found, prefix):
    return next((rows for heading, rows in found.items() if heading.startswith(prefix)), [])

def ratios(cell):
    return [float(x) for x in re.findall(r"([0-9.]+)x", cell)]

all_runs = [tables(f"{scratch}/run-{k}.txt") for k in range(1, runs + 1)]

def with_ranges(title, prefix, ratio_columns):
    first = by_prefix(all_runs[0], prefix)
    if not first:
        return
    print(f"### {title}\n")
    print("| " + " | ".join(first[0]) + " |")
    print("|" + " --- |" * len(first[0]))
    for index, row in enumerate(first[1:], start=1):
        cells = list(row)
        for column in ratio_columns:
            if column >= len(cells) or not ratios(cells[column]):
                continue
            per_run = [ratios(by_prefix(found, prefix)[index][column]) for found in all_runs]
            parts = []
            decimals = [len(d) for d in re.findall(r"[0-9]+\.([0-9]+)x", cells[column])]
            for position, value in enumerate(ratios(cells[column])):
                values = [r[position] for r in per_run if len(r) > position]
                d = decimals[position] if position < len(decimals) else 2
                parts.append(f"{value:.{d}f}x ({min(values):.{d}f} to {max(values):.{d}f})")
            labels = re.findall(r"\(([^()]*[a-z][^()]*)\)", cells[column])
            cells[column] = "; ".join(
                f"{part} {labels[i]}" if i < len(labels) else part for i, part in enumerate(parts))
        print("| " + " | ".join(cells) + " |")
    print()

print(f"Ratios: run 1, with the range over {runs} runs in parentheses.\n")
with_ranges("Scenarios", "Results", [4, 5, 6])
with_ranges("Contention", "Contention", [4, 5])
with_ranges("Layers", "New layers", [3])
for found in all_runs[:1]:
    for heading in ("Start-up", "Heap allocations", "Memory", "Targets"):
        rows = by_prefix(found, heading)
        if rows:
            print(f"### {heading} (run 1)\n")
            print("| " + " | ".join(rows[0]) + " |")
            print("|" + " --- |" * len(rows[0]))
            for row in rows[1:]:
                print("| " + " | ".join(row) + " |")
            print()
print("Floors alone (run 1): " + "; ".join(
    l[len("floor "):].strip() for l in open(f"{scratch}/run-1.txt") if l.startswith("floor ")) + "\n")
for k in range(1, runs + 1):
    targets = [l.rstrip() for l in open(f"{scratch}/run-{k}.txt") if l.startswith("- [")]
    unmet = [t[6:] for t in targets if t.startswith("- [ ]")]
    print(f"run {k}: {len(targets) - len(unmet)} of {len(targets)} targets met; not met: " + ("; ".join(unmet) or "none"))
PY
