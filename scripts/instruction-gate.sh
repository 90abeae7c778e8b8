#!/usr/bin/env bash
# Regression gate in instructions: runs Graft's workload of every Benchmarks/ scenario and layer
# under `valgrind --tool=callgrind`, counts instructions per operation, and compares them with
# Benchmarks/instructions-baseline.txt (wall-clock time on these machines moves by up to 2x between
# runs; instructions do not). Each baseline line is a row's name, its count and its threshold,
# tab-separated: the percent the row may be over its count before the gate fails. A row whose
# count is the same on every run of a build has threshold 0: any increase, at the baseline's
# precision (one decimal), fails. A row whose count varies between runs of one build (its threads
# or tasks are scheduled differently each time) has the spread measured over several runs, at most
# 1%, and is counted again (all workloads run again), up to twice, when a run lands over it: it
# keeps its lowest count. A measured row with no baseline line fails, asking for one.
#   scripts/instruction-gate.sh             check every workload against the baseline
#   scripts/instruction-gate.sh NAME        only the workloads whose name contains NAME
#   scripts/instruction-gate.sh --update    rewrite the baseline's counts from this build
# --update keeps each row's threshold; a new row gets 0, to be set by hand from the counts of
# several runs (each run prints every row's). Updating the baseline is a commit of its own, its
# message saying why the counts changed. How the counting works:
# Benchmarks/Sources/GraftBenchmarks/InstructionGate.swift and scripts/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

BASELINE=Benchmarks/instructions-baseline.txt
SCRATCH=.build-gate
update=0
only=""
for argument in "$@"; do
    case "$argument" in
        --update) update=1 ;;
        -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "instruction-gate: unknown option $argument (see --help)"; exit 2 ;;
        *) only=$argument ;;
    esac
done
if [ "$update" = 1 ] && [ -n "$only" ]; then
    echo "instruction-gate: --update rewrites the whole baseline; run it without a name"
    exit 2
fi
started=$(date +%s)

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
objcopy --strip-debug "$BINARY" "$SCRATCH/GraftBenchmarks"

python3 - "$SCRATCH" "$BASELINE" "$update" "$only" "$started" <<'PY'
import os, platform, shutil, subprocess, sys, time

scratch, baseline_path, update, only, started = sys.argv[1:]
update = update == "1"

def total(dump):
    """The instructions a callgrind dump counted."""
    with open(dump) as lines:
        for line in lines:
            if line.startswith("totals:") or line.startswith("summary:"):
                return int(line.split()[1])
    sys.exit(f"FAIL: instruction gate: no totals in {dump}")

def elapsed():
    return int(time.time()) - int(started)

def measure(only):
    """Each workload's instructions per operation, from one run of the workloads whose name contains only."""
    dumps_path = f"{scratch}/dumps"
    shutil.rmtree(dumps_path, ignore_errors=True)
    os.makedirs(dumps_path)
    # Deterministic hashing: the standard library's Set and Dictionary otherwise seed per process.
    # Every symbol bound at start-up: the dynamic linker otherwise binds each on its first call, a
    # search by name whose cost follows the binary's symbol table, in whichever run calls it first.
    environment = dict(os.environ, SWIFT_DETERMINISTIC_HASHING="1", LD_BIND_NOW="1")
    with open(f"{scratch}/gate.txt", "w") as out, open(f"{scratch}/valgrind.log", "w") as log:
        ran = subprocess.run(["valgrind", "--tool=callgrind", "--dump-after=*instructionGateRun*",
                              f"--callgrind-out-file={dumps_path}/callgrind.out", f"{scratch}/GraftBenchmarks",
                              "--instruction-gate"] + ([only] if only else []), stdout=out, stderr=log, env=environment)
    if ran.returncode != 0:
        sys.stdout.write("".join(open(f"{scratch}/valgrind.log").readlines()[-20:]))
        sys.exit(f"FAIL: instruction gate: the workloads did not run to the end under callgrind ({scratch}/valgrind.log)")
    # One line per workload, after its dumps: the warm-up of all its builds (not used), then n and 2n
    # operations of each build (one per set of filler names). Its count is the lowest over the builds.
    runs = [line.rstrip("\n").split("\t")[1:] for line in open(f"{scratch}/gate.txt") if line.startswith("gate\t")]
    dumps = sorted((name for name in os.listdir(dumps_path) if name.rsplit(".", 1)[-1].isdigit()),
                   key=lambda name: int(name.rsplit(".", 1)[-1]))
    if not runs:
        sys.exit(f"FAIL: instruction gate: no workload's name contains '{only}'" if only else
                 "FAIL: instruction gate: no workload ran")
    expected = sum(1 + 2 * int(sets) for _, _, sets in runs)
    if len(dumps) != expected:
        sys.exit(f"FAIL: instruction gate: callgrind wrote {len(dumps)} dumps, {expected} expected for "
                 f"{len(runs)} workloads (is instructionGateRun still a function of its own?)")
    counts, position = {}, 0
    for name, operations, sets in runs:
        position += 1  # the warm-up
        per_set = []
        for _ in range(int(sets)):
            single, double = (total(f"{dumps_path}/{dumps[position + k]}") for k in (0, 1))
            per_set.append((double - single) / int(operations))
            position += 2
        # The file's precision: what is compared, and what --update writes.
        counts[name] = float(f"{min(per_set):.1f}")
    return counts

now = measure(only)

version = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
toolchain = next((line.strip() for line in version if "Swift version" in line), "unknown")
target = next((line.split(":", 1)[1].strip() for line in version if line.startswith("Target:")), "unknown")
libc = " ".join(platform.libc_ver()) or "unknown"  # the allocator's code is counted too
valgrind = subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout.strip()

# Each row: name, count, threshold (percent over the count that fails), tab-separated.
baseline, thresholds, recorded = {}, {}, {}
if os.path.exists(baseline_path):
    for number, line in enumerate(open(baseline_path), 1):
        if line.startswith(("# toolchain: ", "# target: ", "# libc: ", "# counter: ")):
            key, value = line[2:].rstrip("\n").split(": ", 1)
            recorded[key] = value
        elif line.strip() and not line.startswith("#"):
            fields = line.rstrip("\n").split("\t")
            try:
                name, count, threshold = fields
                baseline[name], thresholds[name] = float(count), float(threshold)
            except ValueError:
                sys.exit(f"FAIL: instruction gate: {baseline_path}:{number}: expected name<TAB>count<TAB>threshold "
                         f"(percent), found {line.strip()!r}")
elif not update:
    sys.exit(f"FAIL: instruction gate: no baseline; run scripts/instruction-gate.sh --update")

if update:
    with open(baseline_path, "w") as out:
        out.write("# Instructions per operation of Graft's workload in each Benchmarks/ scenario and layer\n"
                  "# (release build, callgrind), which scripts/instruction-gate.sh compares with. Each line:\n"
                  "# name<TAB>count<TAB>threshold, the percent a run may be over the count before the gate\n"
                  "# fails. 0 for a row whose count is the same on every run of a build: any increase at this\n"
                  "# file's precision (one decimal) fails. For a row whose count varies between runs of one\n"
                  "# build (threads, tasks, the allocator's free lists), the spread measured over several\n"
                  "# runs, rounded up to 0.1, at most 1.0, and the line at the highest count measured; the\n"
                  "# failed resolution's count includes the runtime's conformance cache, keyed by a protocol\n"
                  "# of the library whose address moves with the binary's layout: 1.0. The counts do not\n"
                  "# depend on where the checkout is or on the library's size (Services.swift in Benchmarks/\n"
                  "# says how). Rewritten by `scripts/instruction-gate.sh --update`, which keeps each row's\n"
                  "# threshold and gives a new row 0, to be set by hand from the counts of several runs;\n"
                  "# commit it on its own, the message saying why the counts changed.\n"
                  "# Counts hold for one compiler, target and C library: with others, the gate only reports.\n"
                  f"# toolchain: {toolchain}\n# target: {target}\n# libc: {libc}\n# counter: {valgrind}\n")
        for name, value in now.items():
            out.write(f"{name}\t{value:.1f}\t{thresholds.get(name, 0.0):.1f}\n")
    print(f"instruction gate: wrote {baseline_path} ({len(now)} workloads, {elapsed()} s)")
    for name, value in now.items():
        before = f"{baseline[name]:.1f} -> " if name in baseline else ""
        note = f"threshold {thresholds[name]:g}%" if name in thresholds else \
            "new: threshold 0%; set it from the counts of several runs"
        print(f"  {name}: {before}{value:.1f} ({note})")
    sys.exit(0)

# A row whose count varies between runs and lands over its line is counted again, up to twice more,
# and keeps its lowest count: valgrind schedules threads differently on each run, so one run can land
# on a level its spread never reached, while a cost the code adds is there on every run. Each count
# runs the same workloads as the first: a row's count depends on what ran before it (the
# allocator's free lists), and one run alone counts some rows lower.
def over(name):
    return name in baseline and now[name] > baseline[name] * (1 + thresholds[name] / 100) + 1e-9 * baseline[name]

for _ in range(2):
    varying = [name for name in now if over(name) and thresholds[name] > 0]
    if not varying:
        break
    again = measure(only)
    for name in varying:
        print(f"counted again: '{name}' {now[name]:.1f}, then {again[name]:.1f}")
        now[name] = min(now[name], again[name])

rows, failures, missing = [], [], []
for name, value in now.items():
    if name not in baseline:
        rows.append((name, "-", f"{value:.1f}", "-", "-  FAIL: not in the baseline"))
        missing.append(f"'{name}' has no line in {baseline_path}: add it (name, count, threshold; "
                       "--update writes its count with threshold 0, then set the threshold from several runs)")
        continue
    before, threshold = baseline[name], thresholds[name]
    change = round((value / before - 1) * 100, 2) + 0.0  # no "-0.00%"
    slack = 1e-9 * before  # float rounding only: both counts have one decimal
    verdict = ""
    if value > before * (1 + threshold / 100) + slack:
        verdict = f"  FAIL: over +{threshold:g}%"
        failures.append(f"'{name}' {before:.1f} -> {value:.1f} ({change:+.2f}%, threshold {threshold:g}%)")
    elif value < before * (1 - threshold / 100) - slack:
        verdict = "  (fewer: --update to keep the gain)"
    rows.append((name, f"{before:.1f}", f"{value:.1f}", f"{threshold:g}%", f"{change:+.2f}%{verdict}"))
if not only:
    for name in baseline.keys() - now.keys():
        rows.append((name, f"{baseline[name]:.1f}", "-", f"{thresholds[name]:g}%", "not measured"))
        failures.append(f"'{name}' is in the baseline but was not measured")

width = max(len(row[0]) for row in rows)
print(f"{'scenario':<{width}}  {'baseline':>10}  {'now':>10}  {'allowed':>7}  change  (instructions per operation)")
for name, before, after, allowed, change in rows:
    print(f"{name:<{width}}  {before:>10}  {after:>10}  {allowed:>7}  {change}")
other = [f"{key} '{recorded.get(key)}' (this run: '{current}')"
         for key, current in (("toolchain", toolchain), ("target", target), ("libc", libc))
         if recorded.get(key) != current]
if other:
    print(f"SKIP: instruction gate: the baseline was written with {', '.join(other)}; another compiler "
          "or C library executes other instructions, so nothing is compared. Run "
          f"scripts/instruction-gate.sh --update to adopt this one ({elapsed()} s)")
    sys.exit(0)
if recorded.get("counter") != valgrind:
    print(f"note: the baseline was counted with {recorded.get('counter')}, this run with {valgrind}")
if failures or missing:
    advice = (" If the cost is intended, run scripts/instruction-gate.sh --update and commit the baseline "
              "saying why.") if failures else ""
    print(f"FAIL: instruction gate: {'; '.join(failures + missing)} ({elapsed()} s).{advice}")
    sys.exit(1)
print(f"PASS: instruction gate: {len(now)} workloads within their thresholds of {baseline_path} ({elapsed()} s)")
PY
