#!/usr/bin/env bash
# Regression gate in instructions: runs Graft's workload of every Benchmarks/ scenario and layer
# under `valgrind --tool=callgrind`, counts instructions per operation, and compares them with
# Benchmarks/instructions-baseline.txt. Fails when a workload takes more than 3% more
# instructions than its baseline (wall-clock time on these machines moves by up to 2x between
# runs; instruction counts of a given build are the same on every run).
#   scripts/instruction-gate.sh             check every workload against the baseline
#   scripts/instruction-gate.sh NAME        only the workloads whose name contains NAME
#   scripts/instruction-gate.sh --update    rewrite the baseline from this build
# Updating the baseline is a commit of its own, its message saying why the counts changed.
# How the counting works: Benchmarks/Sources/GraftBenchmarks/InstructionGate.swift and
# scripts/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

BASELINE=Benchmarks/instructions-baseline.txt
THRESHOLD=3  # percent
SCRATCH=.build-gate
update=0
only=""
for argument in "$@"; do
    case "$argument" in
        --update) update=1 ;;
        -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "instruction-gate: unknown option $argument (see --help)"; exit 2 ;;
        *) only=$argument ;;
    esac
done
if [ "$update" = 1 ] && [ -n "$only" ]; then
    echo "instruction-gate: --update rewrites the whole baseline; run it without a name"
    exit 2
fi
started=$SECONDS

if ! command -v valgrind >/dev/null; then
    echo "instruction-gate: installing valgrind from the system packages"
    (apt-get install -y valgrind >/dev/null 2>&1 || (apt-get update >/dev/null 2>&1 && apt-get install -y valgrind >/dev/null 2>&1)) \
        || { echo "FAIL: instruction gate: could not install valgrind"; exit 1; }
fi

mkdir -p "$SCRATCH"
swift build -c release --package-path Benchmarks >"$SCRATCH/build.log" 2>&1 || { cat "$SCRATCH/build.log"; echo "FAIL: instruction gate: the benchmarks did not build"; exit 1; }
BINARY="$(swift build -c release --package-path Benchmarks --show-bin-path)/GraftBenchmarks"

# Valgrind 3.19 cannot read the DWARF 5 the Swift 6 toolchain writes; callgrind needs only the
# symbol table, so it runs a copy without debug information.
rm -rf "$SCRATCH/dumps"
mkdir -p "$SCRATCH/dumps"
objcopy --strip-debug "$BINARY" "$SCRATCH/GraftBenchmarks"

# Deterministic hashing: the standard library's Set and Dictionary otherwise seed per process.
if ! SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --dump-after='*instructionGateRun*' \
    --callgrind-out-file="$SCRATCH/dumps/callgrind.out" \
    "$SCRATCH/GraftBenchmarks" --instruction-gate ${only:+"$only"} >"$SCRATCH/gate.txt" 2>"$SCRATCH/valgrind.log"; then
    tail -20 "$SCRATCH/valgrind.log"
    echo "FAIL: instruction gate: the workloads did not run to the end under callgrind ($SCRATCH/valgrind.log)"
    exit 1
fi

python3 - "$SCRATCH" "$BASELINE" "$THRESHOLD" "$update" "$only" "$((SECONDS - started))" <<'PY'
import os, platform, subprocess, sys

scratch, baseline_path, threshold, update, only, elapsed = sys.argv[1:]
threshold, update = float(threshold), update == "1"

def total(dump):
    """The instructions a callgrind dump counted."""
    with open(dump) as lines:
        for line in lines:
            if line.startswith("totals:") or line.startswith("summary:"):
                return int(line.split()[1])
    sys.exit(f"FAIL: instruction gate: no totals in {dump}")

# One line per workload, after its dumps: the warm-up of all its builds (not used), then n and 2n
# operations of each build (one per set of filler names). Its count is the lowest over the builds.
runs = [line.rstrip("\n").split("\t")[1:] for line in open(f"{scratch}/gate.txt") if line.startswith("gate\t")]
dumps = sorted((name for name in os.listdir(f"{scratch}/dumps") if name.rsplit(".", 1)[-1].isdigit()),
               key=lambda name: int(name.rsplit(".", 1)[-1]))
if not runs:
    sys.exit(f"FAIL: instruction gate: no workload's name contains '{only}'" if only else
             "FAIL: instruction gate: no workload ran")
expected = sum(1 + 2 * int(sets) for _, _, sets in runs)
if len(dumps) != expected:
    sys.exit(f"FAIL: instruction gate: callgrind wrote {len(dumps)} dumps, {expected} expected for "
             f"{len(runs)} workloads (is instructionGateRun still a function of its own?)")
now, position = {}, 0
for name, operations, sets in runs:
    position += 1  # the warm-up
    counts = []
    for _ in range(int(sets)):
        single, double = (total(f"{scratch}/dumps/{dumps[position + k]}") for k in (0, 1))
        counts.append((double - single) / int(operations))
        position += 2
    now[name] = min(counts)

version = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
toolchain = next((line.strip() for line in version if "Swift version" in line), "unknown")
target = next((line.split(":", 1)[1].strip() for line in version if line.startswith("Target:")), "unknown")
libc = " ".join(platform.libc_ver()) or "unknown"  # the allocator's code is counted too
valgrind = subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout.strip()

if update:
    with open(baseline_path, "w") as out:
        out.write("# Instructions per operation of Graft's workload in each Benchmarks/ scenario and layer\n"
                  "# (release build, callgrind), which scripts/instruction-gate.sh compares with: more than\n"
                  f"# {threshold:g}% above a line fails it. Rewritten by `scripts/instruction-gate.sh --update`;\n"
                  "# commit it on its own, the message saying why the counts changed.\n"
                  "# Counts hold for one compiler, target and C library: with others, the gate only reports.\n"
                  f"# toolchain: {toolchain}\n# target: {target}\n# libc: {libc}\n# counter: {valgrind}\n")
        for name, value in now.items():
            out.write(f"{name}\t{value:.1f}\n")
    print(f"instruction gate: wrote {baseline_path} ({len(now)} workloads, {elapsed} s)")
    for name, value in now.items():
        print(f"  {name}: {value:.1f}")
    sys.exit(0)

if not os.path.exists(baseline_path):
    sys.exit(f"FAIL: instruction gate: no baseline; run scripts/instruction-gate.sh --update")
baseline, recorded = {}, {}
for line in open(baseline_path):
    if line.startswith(("# toolchain: ", "# target: ", "# libc: ", "# counter: ")):
        key, value = line[2:].rstrip("\n").split(": ", 1)
        recorded[key] = value
    elif line.strip() and not line.startswith("#"):
        name, value = line.rstrip("\n").split("\t")
        baseline[name] = float(value)

rows, failures = [], []
for name, value in now.items():
    if name not in baseline:
        rows.append((name, "-", f"{value:.1f}", "not in the baseline"))
        failures.append(f"'{name}' has no baseline")
        continue
    change = round((value / baseline[name] - 1) * 100, 1) + 0.0  # no "-0.0%"
    verdict = ""
    if change > threshold:
        verdict = f"  FAIL: over +{threshold:g}%"
        failures.append(f"'{name}' {change:+.1f}%")
    elif change < -threshold:
        verdict = "  (fewer: --update to keep the gain)"
    rows.append((name, f"{baseline[name]:.1f}", f"{value:.1f}", f"{change:+.1f}%{verdict}"))
if not only:
    for name in baseline.keys() - now.keys():
        rows.append((name, f"{baseline[name]:.1f}", "-", "not measured"))
        failures.append(f"'{name}' is in the baseline but was not measured")

width = max(len(row[0]) for row in rows)
print(f"{'scenario':<{width}}  {'baseline':>10}  {'now':>10}  change  (instructions per operation)")
for name, before, after, change in rows:
    print(f"{name:<{width}}  {before:>10}  {after:>10}  {change}")
other = [f"{key} '{recorded.get(key)}' (this run: '{current}')"
         for key, current in (("toolchain", toolchain), ("target", target), ("libc", libc))
         if recorded.get(key) != current]
if other:
    print(f"SKIP: instruction gate: the baseline was written with {', '.join(other)}; another compiler "
          "or C library executes other instructions, so nothing is compared. Run "
          f"scripts/instruction-gate.sh --update to adopt this one ({elapsed} s)")
    sys.exit(0)
if recorded.get("counter") != valgrind:
    print(f"note: the baseline was counted with {recorded.get('counter')}, this run with {valgrind}")
if failures:
    print(f"FAIL: instruction gate: {'; '.join(failures)} ({elapsed} s). If the cost is intended, "
          "run scripts/instruction-gate.sh --update and commit the baseline saying why.")
    sys.exit(1)
print(f"PASS: instruction gate: {len(now)} workloads within +{threshold:g}% of {baseline_path} ({elapsed} s)")
PY
