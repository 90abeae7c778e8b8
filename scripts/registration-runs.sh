#!/usr/bin/env bash
# Times the registration scenario (Benchmarks/Sources/RegistrationScenario) in processes without
# and with the benchmark's counting malloc, alternately, and summarizes every round of every run:
# the median of the per-round ratios (Swinject's time over Graft's) with its quartiles, and what
# the counter costs each library (each pair's median time with it over the median without it).
#   scripts/registration-runs.sh [PAIRS [DIRECTORY]]   PAIRS pairs of runs (default 6), outputs kept
#                                                      in DIRECTORY (default .build-bench/registration)
#   REGBENCH_ROUNDS=N                                  rounds per run (default 101)
#   REGBENCH_ASSEMBLIES=N                              assemblies per repetition (default 1)
#   REGBENCH_SHAPE=<part of a shape's name>            only that shape
#   REGBENCH_ONLY=without|with                         only the runs without, or with, the counter
set -euo pipefail
cd "$(dirname "$0")/.."

pairs=${1:-6}
directory=${2:-.build-bench/registration}
mkdir -p "$directory"
rm -f "$directory"/run-*.txt
for product in RegistrationTimes RegistrationTimesCounted; do
    swift build -c release --package-path Benchmarks --product "$product" >/dev/null
done
binaries="$(swift build -c release --package-path Benchmarks --show-bin-path)"
for pair in $(seq 1 "$pairs"); do
    # Which process goes first alternates, as the libraries do within a run.
    if [ $((pair % 2)) = 1 ]; then order="without with"; else order="with without"; fi
    for counter in $order; do
        [ -n "${REGBENCH_ONLY:-}" ] && [ "$REGBENCH_ONLY" != "$counter" ] && continue
        product=RegistrationTimes
        [ "$counter" = with ] && product=RegistrationTimesCounted
        REGBENCH_ROUNDS=${REGBENCH_ROUNDS:-101} "$binaries/$product" >"$directory/run-$pair-$counter-counter.txt"
    done
done

python3 - "$directory" "$pairs" <<'PY'
import glob, os, re, statistics, sys

directory, pairs = sys.argv[1], int(sys.argv[2])

def quartiles(values):
    values = sorted(values)
    def at(fraction):
        position = fraction * (len(values) - 1)
        lower = int(position)
        upper = min(lower + 1, len(values) - 1)
        return values[lower] + (values[upper] - values[lower]) * (position - lower)
    return at(0.25), at(0.5), at(0.75)

# rounds[(counter, shape)] = [(pair, swinject, graft)]
rounds, loads, allocations, busy = {}, [], {}, []
for path in sorted(glob.glob(os.path.join(directory, "run-*.txt"))):
    pair, counter = re.match(r"run-(\d+)-(\w+)-counter", os.path.basename(path)).groups()
    shape = None
    for line in open(path):
        if line.startswith("# load average"):
            loads.append(float(line.split(":")[1].split()[0]))
        elif line.startswith("## "):
            shape = line[3:].strip()
        elif line.startswith("busy\t"):
            busy.append(float(line.split("\t")[1].split()[0]))
        elif line.startswith("allocations\t"):
            allocations[line.split("\t")[1]] = line.split("\t")[2].strip()
        elif re.match(r"\d+\t", line):
            fields = line.split("\t")
            # pair, Swinject ns, Graft ns, Swinject faults, Graft faults, Swinject CPU ns, Graft CPU ns
            rounds.setdefault((counter, shape), []).append((int(pair), *map(float, fields[2:4] + fields[5:9])))

print(
    f"{pairs} pairs of runs; load average when each run started: {min(loads):.2f} to {max(loads):.2f}; "
    f"cores busy during each run's rounds (its own included, of {os.cpu_count()}): {min(busy):.2f} to {max(busy):.2f}")
for (counter, shape), values in sorted(rounds.items()):
    q1, middle, q3 = quartiles([r[1] / r[2] for r in values])
    cpu1, cpu, cpu3 = quartiles([r[5] / r[6] for r in values])
    print(
        f"{counter} counter, {shape}: Swinject / Graft median {middle:.2f}x (IQR {q1:.2f} to {q3:.2f}, "
        f"{len(values)} rounds); Graft {statistics.median(r[2] for r in values):.1f} ns/reg, "
        f"Swinject {statistics.median(r[1] for r in values):.1f} ns/reg; in thread CPU time {cpu:.2f}x "
        f"(IQR {cpu1:.2f} to {cpu3:.2f}); minor page faults per registration, mean: "
        f"Graft {statistics.mean(r[4] for r in values):.4f}, Swinject {statistics.mean(r[3] for r in values):.4f}")
for shape, text in sorted(allocations.items()):
    print(f"allocations, {shape}: {text}")
# The counter's cost: per pair, the median time with it over the median without it.
for shape in sorted({shape for _, shape in rounds}):
    if ("with", shape) not in rounds or ("without", shape) not in rounds:
        continue
    for library, column in (("Swinject", 1), ("Graft", 2)):
        ratios = []
        for pair in range(1, pairs + 1):
            with_ = [r[column] for r in rounds[("with", shape)] if r[0] == pair]
            without = [r[column] for r in rounds[("without", shape)] if r[0] == pair]
            ratios.append(statistics.median(with_) / statistics.median(without))
        q1, middle, q3 = quartiles(ratios)
        print(f"counter's cost, {shape}, {library}: time with / without, median over pairs {middle:.3f} (IQR {q1:.3f} to {q3:.3f})")
PY
