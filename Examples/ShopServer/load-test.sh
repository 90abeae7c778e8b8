#!/usr/bin/env bash
# Load test of the shop server: the Graft-wired server and the hand-wired one, side by side.
#
#   Examples/ShopServer/load-test.sh         full run: 16, 64 and 256 connections, 10 rounds of 3 s
#                                            per variant each, then 1,000,000 requests for memory
#   Examples/ShopServer/load-test.sh --ci    short run: 64 connections, 24 rounds of 1 s per variant,
#                                            no memory run; fails below 90% of hand-wired (more,
#                                            shorter rounds than the full run: the median of one
#                                            second's ratio moves less with the machine's load)
#
# It builds the server (release), starts both variants on 127.0.0.1, drives them with wrk (installed
# with apt-get if missing), alternating variants round by round so that the machine's changes of
# speed fall on both, and prints per run: requests, requests per second, p50/p99 latency, errors.
# Throughput of a connection count is the median of its rounds' ratios. Then it checks how many
# instances of each app-wide singleton the Graft server built (Graft's `registrations` counters,
# served at /admin/registrations: one each), the server's resident memory before and after the
# memory run, and the faults: clients that disconnect mid-request, a factory that throws, a database
# error on the catalog's first build, a broken graph at start-up. Its last line:
#   load: N requests, E errors, throughput X% of hand-wired, singletons built once: yes|no, RSS growth M MB
# Environment: SHOP_ROUNDS and SHOP_SECONDS change the rounds per connection count and their
# length; SHOP_PORT_BASE (default 18080; four ports from there); SHOP_KEEP_LOGS=1 keeps the work
# folder with the servers' logs.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
mode=full
case "${1:-}" in
    "") ;;
    --ci) mode=ci ;;
    *) echo "usage: $0 [--ci]" >&2; exit 2 ;;
esac

if [[ $mode == full ]]; then
    connection_counts=(16 64 256)
    rounds=10
    seconds=3
    memory_requests=1000000
    ratio_floor=97
else
    connection_counts=(64)
    rounds=24
    seconds=1
    memory_requests=0
    ratio_floor=90
fi
rounds=${SHOP_ROUNDS:-$rounds}
seconds=${SHOP_SECONDS:-$seconds}
rss_limit_mb=5
port_base=${SHOP_PORT_BASE:-18080}
graft_port=$port_base
hand_port=$((port_base + 1))
fault_port=$((port_base + 2))
broken_port=$((port_base + 3))

failures=()
fail() { failures+=("$1"); echo "FAIL: $1"; }

# Tools: wrk and curl from Debian's packages.
missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v curl >/dev/null || missing+=(curl)
if ((${#missing[@]})); then
    echo "installing ${missing[*]} with apt-get"
    sudo=""
    [[ $(id -u) == 0 ]] || sudo=sudo
    $sudo apt-get update -qq >/dev/null
    $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

echo "building the server (release)"
swift build -c release --package-path "$here" --product shop-server 2>&1 | tail -1
bin="$(swift build -c release --package-path "$here" --show-bin-path)/shop-server"

work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    if [[ ${SHOP_KEEP_LOGS:-0} == 1 ]]; then
        echo "logs kept in $work"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT

# start NAME PORT ARGS...: starts a server, waits until it answers /health (30 s at most).
start() {
    local name=$1 port=$2
    shift 2
    "$bin" --port "$port" --database "$work/$name.sqlite" "$@" >"$work/$name.log" 2>&1 &
    local pid=$!
    pids+=("$pid")
    eval "${name}_pid=$pid"
    for _ in $(seq 300); do
        if curl -fsS -o /dev/null "http://127.0.0.1:$port/health" 2>/dev/null; then return 0; fi
        if ! kill -0 "$pid" 2>/dev/null; then break; fi
        sleep 0.1
    done
    echo "the $name server did not start; its log:" >&2
    cat "$work/$name.log" >&2
    exit 1
}

# stop PID: ends a server this script started, and waits for it.
stop() {
    kill "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
# cpu_ticks PID: the process's user + system time, in clock ticks.
cpu_ticks() { sed -E 's/^.*\) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
ticks_per_second=$(getconf CLK_TCK)

total_requests=0
total_errors=0

# run VARIANT PORT CONNECTIONS SECONDS: one wrk run; sets run_requests, run_rate, run_errors,
# run_cpu_us (the server's CPU time per request, in microseconds).
run() {
    local variant=$1 port=$2 connections=$3 duration=$4
    local out pid ticks_before
    pid=$(eval "echo \$${variant}_pid")
    ticks_before=$(cpu_ticks "$pid")
    out=$(wrk -t 2 -c "$connections" -d "${duration}s" --timeout 5s -s "$here/load/mix.lua" \
        "http://127.0.0.1:$port" | grep '^RESULT')
    local requests duration_us errors p50 p99
    requests=$(sed -E 's/.* requests=([0-9]+).*/\1/' <<<"$out")
    duration_us=$(sed -E 's/.* duration_us=([0-9]+).*/\1/' <<<"$out")
    errors=$(awk '{ n = 0; for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] ~ /^(connect|read|write|status|timeout)$/) n += kv[2] } print n }' <<<"$out")
    p50=$(sed -E 's/.* p50_us=([0-9]+).*/\1/' <<<"$out")
    p99=$(sed -E 's/.* p99_us=([0-9]+).*/\1/' <<<"$out")
    run_requests=$requests
    run_errors=$errors
    run_rate=$(awk -v r="$requests" -v d="$duration_us" 'BEGIN { printf "%.1f", r / (d / 1e6) }')
    run_cpu_us=$(awk -v t="$(($(cpu_ticks "$pid") - ticks_before))" -v r="$requests" -v hz="$ticks_per_second" \
        'BEGIN { printf "%.1f", t / hz * 1e6 / r }')
    total_requests=$((total_requests + requests))
    total_errors=$((total_errors + errors))
    printf '  %-5s c=%-3s %9d requests %9s req/s  p50 %6.2f ms  p99 %6.2f ms  errors %d  server CPU %s us/request\n' \
        "$variant" "$connections" "$requests" "$run_rate" \
        "$(awk -v u="$p50" 'BEGIN { print u / 1000 }')" "$(awk -v u="$p99" 'BEGIN { print u / 1000 }')" "$errors" \
        "$run_cpu_us"
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# singletons: prints the Graft server's counters; sets singletons_once=yes|no.
singletons() {
    local counts
    counts=$(curl -fsS "http://127.0.0.1:$graft_port/admin/registrations")
    sed 's/^/  /' <<<"$counts"
    if grep -q 'instances=' <<<"$counts" && ! grep 'instances=' <<<"$counts" | grep -qv 'instances=1 '; then
        singletons_once=yes
    else
        singletons_once=no
    fi
}

echo "starting both servers (Graft on $graft_port, hand-wired on $hand_port)"
start graft "$graft_port" --fault broken-report
start hand "$hand_port" --hand-wired --fault broken-report

echo "warm-up (3 s each, not counted)"
for port in "$graft_port" "$hand_port"; do
    wrk -t 2 -c 64 -d 3s -s "$here/load/mix.lua" "http://127.0.0.1:$port" >/dev/null
done
rss_start_kb=$(rss_kb "$graft_pid")

echo "throughput: ${rounds} rounds of ${seconds} s per variant and connection count, variants alternating"
worst_ratio=""
for connections in "${connection_counts[@]}"; do
    ratios=()
    graft_rates=()
    hand_rates=()
    graft_cpus=()
    hand_cpus=()
    for round in $(seq "$rounds"); do
        if ((round % 2)); then order=(graft hand); else order=(hand graft); fi
        for variant in "${order[@]}"; do
            if [[ $variant == graft ]]; then port=$graft_port; else port=$hand_port; fi
            run "$variant" "$port" "$connections" "$seconds"
            if [[ $variant == graft ]]; then
                graft_rate=$run_rate
                graft_cpus+=("$run_cpu_us")
            else
                hand_rate=$run_rate
                hand_cpus+=("$run_cpu_us")
            fi
        done
        graft_rates+=("$graft_rate")
        hand_rates+=("$hand_rate")
        ratios+=("$(awk -v g="$graft_rate" -v h="$hand_rate" 'BEGIN { print 100 * g / h }')")
    done
    ratio=$(printf '%s\n' "${ratios[@]}" | median)
    printf '  c=%s: Graft %.1f req/s, hand-wired %.1f req/s (medians); Graft/hand-wired %.1f%% (median of rounds: %s)\n' \
        "$connections" "$(printf '%s\n' "${graft_rates[@]}" | median)" "$(printf '%s\n' "${hand_rates[@]}" | median)" \
        "$ratio" "$(printf '%.1f%% ' "${ratios[@]}")"
    graft_cpu=$(printf '%s\n' "${graft_cpus[@]}" | median)
    hand_cpu=$(printf '%s\n' "${hand_cpus[@]}" | median)
    printf '  c=%s: server CPU per request: Graft %.1f us, hand-wired %.1f us (medians), difference %.1f us\n' \
        "$connections" "$graft_cpu" "$hand_cpu" "$(awk -v g="$graft_cpu" -v h="$hand_cpu" 'BEGIN { print g - h }')"
    if [[ -z $worst_ratio ]] || awk -v a="$ratio" -v b="$worst_ratio" 'BEGIN { exit !(a < b) }'; then
        worst_ratio=$ratio
    fi
done
if awk -v r="$worst_ratio" -v f="$ratio_floor" 'BEGIN { exit !(r < f) }'; then
    fail "throughput $(printf '%.1f' "$worst_ratio")% of hand-wired, below $ratio_floor%"
fi

if ((memory_requests > 0)); then
    echo "memory: the Graft server's resident memory before and after $memory_requests requests (64 connections)"
    rss_before_kb=$(rss_kb "$graft_pid")
    served=0
    for _ in $(seq 200); do
        ((served < memory_requests)) || break
        out=$(wrk -t 2 -c 64 -d 10s --timeout 5s -s "$here/load/mix.lua" "http://127.0.0.1:$graft_port" | grep '^RESULT')
        requests=$(sed -E 's/.* requests=([0-9]+).*/\1/' <<<"$out")
        errors=$(awk '{ n = 0; for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] ~ /^(connect|read|write|status|timeout)$/) n += kv[2] } print n }' <<<"$out")
        served=$((served + requests))
        total_requests=$((total_requests + requests))
        total_errors=$((total_errors + errors))
    done
    rss_after_kb=$(rss_kb "$graft_pid")
    printf '  %d requests, %d errors so far; RSS %.1f MB before, %.1f MB after\n' "$served" "$total_errors" \
        "$(awk -v k="$rss_before_kb" 'BEGIN { print k / 1024 }')" "$(awk -v k="$rss_after_kb" 'BEGIN { print k / 1024 }')"
else
    # The short run has no memory run of its own: growth over the throughput runs.
    rss_before_kb=$rss_start_kb
    rss_after_kb=$(rss_kb "$graft_pid")
    printf '  RSS %.1f MB after warm-up, %.1f MB after the throughput runs\n' \
        "$(awk -v k="$rss_before_kb" 'BEGIN { print k / 1024 }')" "$(awk -v k="$rss_after_kb" 'BEGIN { print k / 1024 }')"
fi
rss_growth=$(awk -v a="$rss_after_kb" -v b="$rss_before_kb" 'BEGIN { printf "%.1f", (a - b) / 1024 }')
if [[ $mode == full ]] && awk -v g="$rss_growth" -v l="$rss_limit_mb" 'BEGIN { exit !(g >= l) }'; then
    fail "RSS grew by $rss_growth MB over $memory_requests requests (limit $rss_limit_mb MB)"
fi

echo "singletons: instances built by the Graft server's factories (/admin/registrations)"
singletons
[[ $singletons_once == yes ]] || fail "an app-wide singleton was built more than once"

echo "faults"
# Clients that disconnect mid-request: half send part of a request and hang up, half send a whole
# request and hang up without reading the answer.
fds_before=$(find "/proc/$graft_pid/fd" -mindepth 1 | wc -l)
trap '' PIPE # a write to a socket the server has closed fails instead of ending this script
for i in $(seq 1000); do
    if exec 3<>"/dev/tcp/127.0.0.1/$graft_port" 2>/dev/null; then
        if ((i % 2)); then
            printf 'GET /accounts/%d HTTP/1.1\r\nHost: 127.0.0.1\r\n' "$i" >&3 || true
        else
            printf 'GET /orders/%d HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n' "$i" >&3 || true
        fi
        exec 3>&-
    else
        fail "disconnects: connection $i refused"
        break
    fi
done
trap - PIPE
fds_after=$fds_before
for _ in $(seq 50); do
    fds_after=$(find "/proc/$graft_pid/fd" -mindepth 1 | wc -l)
    ((fds_after <= fds_before + 2)) && break
    sleep 0.1
done
if curl -fsS -o /dev/null "http://127.0.0.1:$graft_port/accounts/1"; then
    echo "  1000 clients hung up mid-request: server still serving; open descriptors $fds_before before, $fds_after after"
else
    fail "the server stopped answering after clients hung up mid-request"
fi
((fds_after <= fds_before + 2)) || fail "descriptors leaked: $fds_before before the hang-ups, $fds_after after"

# A factory that throws: GET /reports/broken answers 500 and logs the ResolutionError; the server
# keeps serving (the hand-wired server answers the same, logging the initialiser's error).
for variant in graft hand; do
    if [[ $variant == graft ]]; then port=$graft_port; else port=$hand_port; fi
    status=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/reports/broken")
    after=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/reports/weekly")
    echo "  $variant: GET /reports/broken -> $status, then GET /reports/weekly -> $after"
    [[ $status == 500 && $after == 200 ]] || fail "$variant: a throwing factory gave $status, then $after"
done
if grep -q 'GET /reports/broken failed: Graft: resolution failed: the factory of ReportService' "$work/graft.log"; then
    echo "  logged: $(grep -m1 'GET /reports/broken failed' "$work/graft.log" | sed -E 's/.*(GET \/reports)/\1/')"
else
    fail "the Graft server did not log the ResolutionError of the throwing factory"
fi

# A database error on the async catalog's first build: a new Graft server whose first catalog load
# fails; the first request gets 503, the next one builds it.
start fault "$fault_port" --fault catalog-first-build
first=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$fault_port/products")
second=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$fault_port/products")
third=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$fault_port/products")
catalog=$(curl -fsS "http://127.0.0.1:$fault_port/admin/registrations" | grep '^Catalog async')
echo "  catalog's first build fails: GET /products -> $first, $second, $third; $catalog"
[[ $first == 503 && $second == 200 && $third == 200 ]] || fail "catalog: answers $first, $second, $third"
[[ $catalog == *"instances=1 attempts=2"* ]] || fail "catalog: $catalog (expected one build after two attempts)"
grep -q 'no such table: products_unavailable' "$work/fault.log" ||
    fail "the catalog's database error was not logged"
stop "$fault_pid"

# A broken graph: the server validates at start-up and refuses to serve.
if timeout 60 "$bin" --port "$broken_port" --database "$work/broken.sqlite" --fault missing-registration \
    >"$work/broken.log" 2>&1; then
    fail "the server started with a broken graph"
elif grep -q 'refusing to serve' "$work/broken.log" && grep -q '^FAILURE' "$work/broken.log"; then
    echo "  broken graph: refused to start, $(grep -c '^FAILURE' "$work/broken.log") failures reported"
else
    fail "a broken graph: the server stopped without the validation report"
fi

# The Graft server's counters again, after everything: still one instance each.
singletons >/dev/null
[[ $singletons_once == yes ]] || fail "an app-wide singleton was built more than once (after the faults)"

((total_errors == 0)) || fail "$total_errors errors under load"
printf 'load: %d requests, %d errors, throughput %.1f%% of hand-wired, singletons built once: %s, RSS growth %s MB\n' \
    "$total_requests" "$total_errors" "$worst_ratio" "$singletons_once" "$rss_growth"
((${#failures[@]} == 0))
