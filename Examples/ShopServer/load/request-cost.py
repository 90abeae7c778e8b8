#!/usr/bin/env python3
"""What a request costs each server: the Graft-wired server against the hand-wired one.

Starts both servers (release builds, already built) on new databases of their own, warms them up,
then runs rounds that alternate the two variants (the order flips every round, so the machine's
changes of speed fall on both) and prints, per connection count:

- the server's CPU time per request: every thread's time on a CPU (/proc/PID/task/*/schedstat,
  in nanoseconds; user and kernel time alike), over the requests shop-load counted. The median of
  each variant's rounds with its interquartile range, and the median of the per-round differences
  (Graft less hand-wired) with theirs;
- throughput: the median of the per-round ratios (Graft over hand-wired), with their
  interquartile range.

    load/request-cost.py [--mix reads|writes] [--rounds N] [--seconds S] [--connections 16,64,256]
                         [--port-base PORT]

Defaults: the read mix, 30 rounds of 2 s per variant, 64 connections, ports 18280 and 18281. Run
it on a machine doing nothing else: a build beside it moves each round by more than the wiring.
"""

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.path.join(HERE, "..", ".build", "release")


def cpu_ns(pid):
    """The process's threads' time on a CPU so far, in nanoseconds."""
    total = 0
    task_dir = f"/proc/{pid}/task"
    for task in os.listdir(task_dir):
        try:
            with open(f"{task_dir}/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            pass  # a thread that ended between the listing and the read
    return total


def quartiles(values):
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], statistics.median(values), q[2]


def start(name, port, work, extra):
    database = os.path.join(work, f"{name}.sqlite")
    log = open(os.path.join(work, f"{name}.log"), "a")
    process = subprocess.Popen(
        [os.path.join(BIN, "shop-server"), "--port", str(port), "--database", database, *extra],
        stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1).read()
            return process
        except OSError:
            if process.poll() is not None:
                break
            time.sleep(0.1)
    sys.exit(f"request-cost: the {name} server did not start; see {log.name}")


def load(port, connections, seconds, mix, run_id):
    """One shop-load run; returns its requests and requests per second."""
    output = subprocess.run(
        [os.path.join(BIN, "shop-load"), "--url", f"http://127.0.0.1:{port}", "--connections",
         str(connections), "--seconds", str(seconds), "--mix", mix, "--run-id", run_id],
        capture_output=True, text=True, check=True).stdout
    result = next(line for line in output.splitlines() if line.startswith("RESULT "))
    fields = dict(item.split("=", 1) for item in result.split()[1:])
    if int(fields["errors"]) or int(fields["unexpected"]):
        sys.exit(f"request-cost: unexpected answers in a run: {result}")
    requests = int(fields["requests"])
    return requests, requests / (int(fields["duration_us"]) / 1e6)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mix", choices=["reads", "writes"], default="reads")
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=2)
    parser.add_argument("--connections", default="64")
    parser.add_argument("--port-base", type=int, default=18280)
    options = parser.parse_args()

    work = tempfile.mkdtemp(prefix="request-cost.")
    ports = {"graft": options.port_base, "hand": options.port_base + 1}
    servers = {"graft": start("graft", ports["graft"], work, []),
               "hand": start("hand", ports["hand"], work, ["--hand-wired"])}
    try:
        for variant in servers:  # warm-up: caches, the catalog, SQLite's pages
            load(ports[variant], 64, 3, options.mix, f"warm-{variant}")
        for connections in [int(c) for c in options.connections.split(",")]:
            cpu = {"graft": [], "hand": []}
            rate = {"graft": [], "hand": []}
            for round_index in range(options.rounds):
                order = ["graft", "hand"] if round_index % 2 == 0 else ["hand", "graft"]
                for variant in order:
                    pid = servers[variant].pid
                    before = cpu_ns(pid)
                    requests, per_second = load(
                        ports[variant], connections, options.seconds, options.mix,
                        f"c{connections}-r{round_index}-{variant}")
                    cpu[variant].append((cpu_ns(pid) - before) / requests / 1000)
                    rate[variant].append(per_second)
                print(f"c={connections} round {round_index + 1}: CPU per request Graft "
                      f"{cpu['graft'][-1]:.2f} us, hand-wired {cpu['hand'][-1]:.2f} us; "
                      f"Graft/hand-wired throughput {100 * rate['graft'][-1] / rate['hand'][-1]:.1f}%",
                      flush=True)
            differences = [g - h for g, h in zip(cpu["graft"], cpu["hand"])]
            ratios = [100 * g / h for g, h in zip(rate["graft"], rate["hand"])]
            for variant, label in (("graft", "Graft"), ("hand", "hand-wired")):
                q1, median, q3 = quartiles(cpu[variant])
                print(f"c={connections} {options.mix}: {label} CPU per request {median:.2f} us "
                      f"(IQR {q1:.2f} to {q3:.2f})")
            q1, median, q3 = quartiles(differences)
            print(f"c={connections} {options.mix}: difference per round (Graft less hand-wired) "
                  f"{median:.2f} us (IQR {q1:.2f} to {q3:.2f})")
            q1, median, q3 = quartiles(ratios)
            print(f"c={connections} {options.mix}: throughput Graft/hand-wired {median:.1f}% "
                  f"(IQR {q1:.1f} to {q3:.1f}), {options.rounds} rounds of {options.seconds:g} s")
    finally:
        for process in servers.values():
            process.send_signal(signal.SIGTERM)
        for process in servers.values():
            process.wait(timeout=15)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
