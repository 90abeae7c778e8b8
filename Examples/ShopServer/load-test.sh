#!/usr/bin/env bash
# Load test of the shop server: the Graft-wired server and the hand-wired one, side by side, under a
# mix of writes and reads, and a proof that no write is lost.
#
#   Examples/ShopServer/load-test.sh         full run: 16, 64 and 256 connections, 10 rounds of 3 s
#                                            per variant each, then 1,000,000 requests for memory,
#                                            the pool/core matrix, the crash test and the daily
#                                            report's timing (about 15 minutes)
#   Examples/ShopServer/load-test.sh --ci    short run: 64 connections, 24 rounds of 1 s per variant,
#                                            no memory run, no matrix, no crash test (more, shorter
#                                            rounds than the full run: the median of one second's
#                                            ratio moves less with the machine's load); both runs
#                                            fail below 90% of hand-wired
#
# It builds the server and shop-load (release), starts both variants on 127.0.0.1, each on a new
# database of its own, and drives them with shop-load's write mix (25% orders, 5% new accounts,
# 70% reads; closed-loop keep-alive connections that finish their request in flight at the end, so
# every write sent has a recorded outcome), alternating variants round by round so that the
# machine's changes of speed fall on both, and prints per run: requests, requests per second,
# p50/p99 latency, errors (any answer the server's contract does not allow, socket errors and
# timeouts) and 503s. Throughput of a connection count is the median of its rounds' ratios. Each
# database is snapshot after the warm-up (load/check.py); after all the load each server is stopped
# with SIGTERM (it must exit 0 within 10 s) and its database compared with the snapshot and the
# writes shop-load recorded: every order and account answered 201 is there once, nothing else is,
# every balance is its starting balance less its orders. Then it checks how many instances of each
# app-wide singleton the Graft server built (Graft's `registrations` counters, served at
# /admin/registrations: one each), the server's resident memory before and after the memory run,
# the faults (clients that disconnect mid-request, a factory that throws, a database error on the
# catalog's first build, a broken graph at start-up), bad inputs against both servers (each with
# its status and a JSON error body), start-up refusals, and a shutdown with a request stuck in
# flight. The full run adds: the Graft server at pool sizes 1, 2, 4 and 32 on one core and on all
# of them; a server killed with SIGKILL under writes, restarted on the same file and checked (a
# write sent but never answered may or may not be there); the daily report's median time with at
# least 100,000 orders in the day (under 3 ms). Its last line:
#   load: N requests, E errors, throughput X% of hand-wired, singletons built once: yes|no, RSS growth M MB, data: consistent|N problems
# Environment: SHOP_ROUNDS and SHOP_SECONDS change the rounds per connection count and their
# length; SHOP_FLOOR the throughput floor in percent of hand-wired (a median below it takes as
# many rounds again, and fails if the median over all of them is still below);
# SHOP_PORT_BASE (default 18080; seven ports from there); SHOP_KEEP_LOGS=1 keeps the work
# folder with the servers' logs, the databases and the records.
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
    # With writes in the mix the Graft server measured 94% to 101% of hand-wired (README): the floor
    # catches a regression of the wiring, not the few percent this machine cannot resolve.
    ratio_floor=90
else
    connection_counts=(64)
    rounds=24
    seconds=1
    memory_requests=0
    ratio_floor=90
fi
rounds=${SHOP_ROUNDS:-$rounds}
ratio_floor=${SHOP_FLOOR:-$ratio_floor}
seconds=${SHOP_SECONDS:-$seconds}
rss_limit_mb=5
daily_orders_floor=100000
daily_limit_ms=3
port_base=${SHOP_PORT_BASE:-18080}
graft_port=$port_base
hand_port=$((port_base + 1))
fault_port=$((port_base + 2))
broken_port=$((port_base + 3))
stuck_port=$((port_base + 4))
matrix_port=$((port_base + 5))
crash_port=$((port_base + 6))

failures=()
fail() { failures+=("$1"); echo "FAIL: $1"; }

# Tools: curl and python3 (load/check.py) from Debian's packages; taskset and setpriv are util-linux's.
missing=()
command -v curl >/dev/null || missing+=(curl)
command -v python3 >/dev/null || missing+=(python3)
if ((${#missing[@]})); then
    echo "installing ${missing[*]} with apt-get"
    sudo=""
    [[ $(id -u) == 0 ]] || sudo=sudo
    $sudo apt-get update -qq >/dev/null
    $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

echo "building the server and shop-load (release)"
for product in shop-server shop-load; do
    swift build -c release --package-path "$here" --product "$product" 2>&1 | tail -1
done
bin_dir="$(swift build -c release --package-path "$here" --show-bin-path)"
bin="$bin_dir/shop-server"
load_bin="$bin_dir/shop-load"
check=(python3 "$here/load/check.py")

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

# forget PID: a process of this script that has exited, which cleanup must not signal any more.
forget() {
    local kept=() pid
    for pid in "${pids[@]}"; do
        [[ $pid == "$1" ]] || kept+=("$pid")
    done
    pids=("${kept[@]}")
}

# start NAME PORT ARGS...: starts a server on $work/NAME.sqlite (made if new), logging to
# $work/NAME.log, waits until it answers /health (30 s at most); sets NAME_pid. The command in the
# array `launcher` (empty unless set, e.g. taskset) runs the server.
launcher=()
start() {
    local name=$1 port=$2
    shift 2
    "${launcher[@]}" "$bin" --port "$port" --database "$work/$name.sqlite" "$@" >>"$work/$name.log" 2>&1 &
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

# running PID: whether the process runs (a zombie, exited but not yet waited for, does not).
running() {
    local state
    state=$(sed -E 's/^.*\) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
    [[ -n $state && $state != Z ]]
}

# stop NAME: SIGTERM to the server, which must exit with status 0 within 10 s (else it is killed and
# the test fails); sets stop_status and stop_ms.
stop() {
    local name=$1 pid started
    pid=$(eval "echo \$${name}_pid")
    started=$(date +%s%N)
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do
        running "$pid" || break
        sleep 0.1
    done
    stop_ms=$((($(date +%s%N) - started) / 1000000))
    if running "$pid"; then
        kill -KILL "$pid" 2>/dev/null || true
        fail "$name: still running 10 s after SIGTERM; killed"
    fi
    stop_status=0
    wait "$pid" 2>/dev/null || stop_status=$?
    forget "$pid"
    if ((stop_status != 0)); then
        fail "$name: exited with status $stop_status after SIGTERM"
    fi
    echo "  $name: SIGTERM -> exited with status $stop_status after $stop_ms ms"
}

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
# cpu_ticks PID: the process's user + system time, in clock ticks.
cpu_ticks() { sed -E 's/^.*\) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
ticks_per_second=$(getconf CLK_TCK)
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# field NAME: the value of NAME=... in the RESULT line on standard input.
field() { sed -nE "s/.* $1=([0-9]+).*/\1/p"; }
percent() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b ? 100 * a / b : 0 }'; }

total_requests=0
total_errors=0
total_writes=0
total_503=0
data_problems=0
load_runs=0
declare -A total_by_status=()
statuses=(s200 s201 s404 s409 s503 other)

# load PORT CONNECTIONS SECONDS RECORD_DIR [SHOP_LOAD_ARGS...]: one shop-load run (the write mix
# unless the arguments say otherwise), its records appended to RECORD_DIR; adds it to the totals
# and sets run_requests, run_rate, run_errors, run_writes, run_503, run_p50, run_p99, run_line.
load() {
    local port=$1 connections=$2 duration=$3 records=$4
    shift 4
    load_runs=$((load_runs + 1))
    run_line=$("$load_bin" --url "http://127.0.0.1:$port" --connections "$connections" --seconds "$duration" \
        --seed "$load_runs" --run-id "r$load_runs" --record "$records" "$@" | grep '^RESULT')
    run_requests=$(field requests <<<"$run_line")
    run_errors=$(field errors <<<"$run_line")
    run_writes=$(field writes <<<"$run_line")
    run_503=$(field s503 <<<"$run_line")
    run_p50=$(field p50_us <<<"$run_line")
    run_p99=$(field p99_us <<<"$run_line")
    run_rate=$(awk -v r="$run_requests" -v d="$(field duration_us <<<"$run_line")" 'BEGIN { printf "%.1f", r / (d / 1e6) }')
    total_requests=$((total_requests + run_requests))
    total_errors=$((total_errors + run_errors))
    total_writes=$((total_writes + run_writes))
    total_503=$((total_503 + run_503))
    local status
    for status in "${statuses[@]}"; do
        total_by_status[$status]=$((${total_by_status[$status]:-0} + $(field "$status" <<<"$run_line")))
    done
}

# describe LABEL: prints the last load run.
describe() {
    printf '  %-12s %9d requests %9s req/s  p50 %7.2f ms  p99 %7.2f ms  errors %d  writes %d  503 %d%s\n' \
        "$1" "$run_requests" "$run_rate" "$(awk -v u="$run_p50" 'BEGIN { print u / 1000 }')" \
        "$(awk -v u="$run_p99" 'BEGIN { print u / 1000 }')" "$run_errors" "$run_writes" "$run_503" "${2:-}"
}

# snapshot NAME: the balances and highest ids of NAME's database, before the load it checks.
snapshot() {
    "${check[@]}" snapshot "$work/$1.sqlite" "$work/$1.snapshot" | sed 's/^/  /'
}

# check_data NAME [--allow-unanswered]: compares NAME's database with its snapshot and the records
# in $work/NAME-records; adds its problems to data_problems.
check_data() {
    local name=$1 out status=0
    shift
    out=$("${check[@]}" check "$work/$name.sqlite" "$work/$name.snapshot" "$work/$name-records" "$@") || status=$?
    sed "s/^/  $name: /" <<<"$out"
    local problems
    problems=$(sed -nE 's/^data: ([0-9]+) problems$/\1/p' <<<"$out")
    if ((status == 0)) && grep -qx 'data: consistent' <<<"$out"; then
        return 0
    elif [[ -n $problems ]]; then
        data_problems=$((data_problems + problems))
        fail "$name: the database does not match the writes answered: $problems problems"
    else
        data_problems=$((data_problems + 1))
        fail "$name: load/check.py failed (status $status)"
    fi
}

# run VARIANT PORT CONNECTIONS SECONDS: one throughput run; also sets run_cpu_us (the server's CPU
# time per request, in microseconds).
run() {
    local variant=$1 port=$2 connections=$3 duration=$4
    local pid ticks_before
    pid=$(eval "echo \$${variant}_pid")
    ticks_before=$(cpu_ticks "$pid")
    load "$port" "$connections" "$duration" "$work/$variant-records"
    run_cpu_us=$(awk -v t="$(($(cpu_ticks "$pid") - ticks_before))" -v r="$run_requests" -v hz="$ticks_per_second" \
        'BEGIN { printf "%.1f", t / hz * 1e6 / r }')
    describe "$variant c=$connections" "  server CPU $run_cpu_us us/request"
}

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

# probe VARIANT WANT WHAT CURL_ARGS...: one request with curl; checks its status and, for an
# error (4xx, 5xx), that it is JSON of one shape: {"error": "..."}. Leaves the answer's headers in
# $work/probe.headers and its body in $work/probe.body; sets probe_ok=yes|no.
probe() {
    local variant=$1 want=$2 what=$3 status problems=()
    shift 3
    status=$(curl -s -o "$work/probe.body" -D "$work/probe.headers" -w '%{http_code}' --max-time 10 "$@") || true
    [[ $status == "$want" ]] || problems+=("status $status, not $want")
    if ((want >= 400)); then
        grep -qiE '^content-type: *application/json' "$work/probe.headers" ||
            problems+=("Content-Type: $(grep -i '^content-type:' "$work/probe.headers" | tr -d '\r' | cut -d' ' -f2-)")
        python3 -c '
import json, sys
body = json.load(open(sys.argv[1]))
sys.exit(0 if isinstance(body, dict) and list(body) == ["error"] and isinstance(body["error"], str) else 1)
' "$work/probe.body" 2>/dev/null || problems+=("body $(head -c 200 "$work/probe.body"), not {\"error\": \"...\"}")
    fi
    if ((${#problems[@]})); then
        probe_ok=no
        fail "$variant: $what: $(IFS=';'; echo "${problems[*]}")"
    else
        probe_ok=yes
        printf '  %-5s %-44s -> %s %s\n' "$variant" "$what" "$status" "$(head -c 90 "$work/probe.body" | tr -d '\n')"
    fi
}

# allow VARIANT WHAT METHODS: the last probe's Allow header names exactly METHODS ("GET, HEAD").
allow() {
    local got want
    got=$(grep -i '^allow:' "$work/probe.headers" | tr -d '\r' | cut -d: -f2- | tr ',' '\n' | tr -d ' ' | sort | paste -sd' ')
    want=$(tr ',' '\n' <<<"$3" | tr -d ' ' | sort | paste -sd' ')
    [[ -n $got && $got == "$want" ]] || fail "$1: $2: Allow '$got', not '$want'"
}

# head_health VARIANT PORT: HEAD /health on a socket of its own, read to its end: 200 and no byte
# after the head (curl would not show a body the server wrongly sent).
head_health() {
    local answer
    answer=$(python3 - "$2" <<'EOF'
import socket, sys
connection = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
connection.sendall(b"HEAD /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
data = b""
try:
    while chunk := connection.recv(65536):
        data += chunk
except socket.timeout:
    pass  # kept open despite "Connection: close": judge what came
head, _, rest = data.partition(b"\r\n\r\n")
print(head.split(b" ")[1].decode() if b" " in head else "none", len(rest))
EOF
    ) || answer="none 0"
    if [[ $answer == "200 0" ]]; then
        printf '  %-5s %-44s -> 200, no body\n' "$1" "HEAD /health"
    else
        fail "$1: HEAD /health: status and bytes after the head: $answer (want 200 0)"
    fi
}

# bad_inputs VARIANT PORT: requests the server must refuse, each with its status.
bad_inputs() {
    local variant=$1 url="http://127.0.0.1:$2"
    local json=(-H 'Content-Type: application/json')
    probe "$variant" 409 "POST /accounts, an email taken" "${json[@]}" --data-binary \
        '{"name":"Dup","email":"account1@example.com","balanceCents":100}' "$url/accounts"
    probe "$variant" 400 "POST /accounts, an empty name" "${json[@]}" --data-binary \
        '{"name":"","email":"empty-name@example.com","balanceCents":100}' "$url/accounts"
    probe "$variant" 400 "POST /accounts, an empty email" "${json[@]}" --data-binary \
        '{"name":"No email","email":"","balanceCents":100}' "$url/accounts"
    probe "$variant" 400 "POST /accounts, a balance of Int.max" "${json[@]}" --data-binary \
        '{"name":"Rich","email":"rich@example.com","balanceCents":9223372036854775807}' "$url/accounts"
    probe "$variant" 400 "POST /accounts, a negative balance" "${json[@]}" --data-binary \
        '{"name":"Poor","email":"poor@example.com","balanceCents":-1}' "$url/accounts"
    probe "$variant" 400 "POST /accounts, malformed JSON" "${json[@]}" --data-binary \
        '{"name":"Broken","email":' "$url/accounts"
    probe "$variant" 415 "POST /accounts, text/plain" -H 'Content-Type: text/plain' --data-binary \
        '{"name":"Text","email":"text@example.com","balanceCents":100}' "$url/accounts"
    probe "$variant" 415 "POST /accounts, no Content-Type" -H 'Content-Type:' --data-binary \
        '{"name":"None","email":"none@example.com","balanceCents":100}' "$url/accounts"
    probe "$variant" 413 "POST /accounts, a body of 2 MB" "${json[@]}" -H 'Expect:' --data-binary \
        "@$work/big.json" "$url/accounts"
    probe "$variant" 400 "POST /orders, quantity 0" "${json[@]}" --data-binary \
        '{"accountID":1,"productID":1,"quantity":0}' "$url/orders"
    probe "$variant" 400 "POST /orders, an unknown product" "${json[@]}" --data-binary \
        '{"accountID":1,"productID":999,"quantity":1}' "$url/orders"
    probe "$variant" 404 "POST /orders, an unknown account" "${json[@]}" --data-binary \
        '{"accountID":999999999,"productID":1,"quantity":1}' "$url/orders"
    probe "$variant" 405 "PUT /accounts/1" -X PUT "$url/accounts/1"
    allow "$variant" "PUT /accounts/1" "GET, HEAD"
    probe "$variant" 405 "POST /health" -X POST "$url/health"
    allow "$variant" "POST /health" "GET, HEAD"
    probe "$variant" 405 "GET /accounts" "$url/accounts"
    allow "$variant" "GET /accounts" "POST"
    head_health "$variant" "$2"
    probe "$variant" 404 "GET /nope" "$url/nope"
    probe "$variant" 400 "GET /accounts/abc" "$url/accounts/abc"
    probe "$variant" 404 "GET /accounts/999999999" "$url/accounts/999999999"
}

echo "starting both servers (Graft on $graft_port, hand-wired on $hand_port), each on a new database"
start graft "$graft_port" --fault broken-report
start hand "$hand_port" --hand-wired --fault broken-report

echo "warm-up (3 s each, write mix; the databases are snapshot after it)"
for variant in graft hand; do
    if [[ $variant == graft ]]; then port=$graft_port; else port=$hand_port; fi
    load "$port" 64 3 "$work/$variant-warm-up"
    describe "$variant"
done
rss_start_kb=$(rss_kb "$graft_pid")
snapshot graft
snapshot hand

echo "throughput: ${rounds} rounds of ${seconds} s per variant and connection count, variants alternating"
worst_ratio=""
for connections in "${connection_counts[@]}"; do
    ratios=()
    graft_rates=()
    hand_rates=()
    graft_cpus=()
    hand_cpus=()
    # A median below the floor takes as many rounds again, and the median over all of them: single
    # rounds range over tens of percent on a shared machine, and one set of them can land low.
    for pass in 1 2; do
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
    if ((pass == 2)) || ! awk -v r="$ratio" -v f="$ratio_floor" 'BEGIN { exit !(r < f) }'; then break; fi
    printf '  c=%s: Graft/hand-wired %.1f%% over %s rounds, below %s%%: %s rounds more\n' \
        "$connections" "$ratio" "${#ratios[@]}" "$ratio_floor" "$rounds"
    done
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
    echo "memory: the Graft server's resident memory before and after $memory_requests requests (64 connections, write mix)"
    rss_before_kb=$(rss_kb "$graft_pid")
    served=0
    for _ in $(seq 200); do
        ((served < memory_requests)) || break
        load "$graft_port" 64 10 "$work/graft-records"
        served=$((served + run_requests))
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
stop fault

# A broken graph: the server validates at start-up and refuses to serve.
if timeout 60 "$bin" --port "$broken_port" --database "$work/broken.sqlite" --fault missing-registration \
    >"$work/broken.log" 2>&1; then
    fail "the server started with a broken graph"
elif grep -q 'refusing to serve' "$work/broken.log" && grep -q '^FAILURE' "$work/broken.log"; then
    echo "  broken graph: refused to start, $(grep -c '^FAILURE' "$work/broken.log") failures reported"
else
    fail "a broken graph: the server stopped without the validation report"
fi

echo "bad inputs: each refused with its status and a JSON error"
python3 -c 'import sys; sys.stdout.write("{\"name\":\"" + "a" * (2 * 1024 * 1024) + "\",\"email\":\"big@example.com\",\"balanceCents\":1}")' \
    >"$work/big.json"
bad_inputs graft "$graft_port"
bad_inputs hand "$hand_port"

if [[ $mode == full ]]; then
    echo "daily report: GET /reports/daily on the Graft server with at least $daily_orders_floor orders in the day"
    day_orders() {
        curl -fsS "http://127.0.0.1:$graft_port/reports/daily" | python3 -c 'import json, sys; print(json.load(sys.stdin)["orders"])'
    }
    orders_today=$(day_orders)
    for _ in $(seq 30); do
        ((orders_today < daily_orders_floor)) || break
        load "$graft_port" 64 10 "$work/graft-records" --mix orders
        describe "graft orders"
        orders_today=$(day_orders)
    done
    times=()
    for _ in $(seq 20); do
        times+=("$(curl -fsS -o /dev/null -w '%{time_total}' "http://127.0.0.1:$graft_port/reports/daily")")
    done
    daily_ms=$(printf '%s\n' "${times[@]}" | median | awk '{ printf "%.2f", $1 * 1000 }')
    echo "  median of 20: $daily_ms ms, with $orders_today orders in the day"
    ((orders_today >= daily_orders_floor)) || fail "daily report: only $orders_today orders in the day"
    awk -v t="$daily_ms" -v l="$daily_limit_ms" 'BEGIN { exit !(t < l) }' ||
        fail "daily report: median $daily_ms ms, not under $daily_limit_ms ms"
fi

# The Graft server's counters again, after everything: still one instance each.
singletons >/dev/null
[[ $singletons_once == yes ]] || fail "an app-wide singleton was built more than once (after the faults)"

echo "stopping both servers (SIGTERM), then their databases against the writes answered"
stop graft
stop hand
check_data graft
check_data hand

echo "start-up refusals"
# As root, permissions stop no write: the database checks run as nobody, in a folder it can reach,
# with a copy of the server it can run.
refusals="$work/refusals"
mkdir -p "$refusals/readonly-file" "$refusals/readonly-folder"
chmod 711 "$work"
chmod 755 "$refusals" "$refusals/readonly-folder"
cp "$bin" "$refusals/shop-server"
python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).backup(sqlite3.connect(sys.argv[2]))' \
    "$work/hand.sqlite" "$refusals/readonly-file/shop.sqlite"
chmod 444 "$refusals/readonly-file/shop.sqlite"
chown -R 65534:65534 "$refusals/readonly-file"
# refuse WHAT WANT_STATUS WANT_TEXT COMMAND...: the command must exit with WANT_STATUS (any non-zero
# one for "nonzero") saying WANT_TEXT, without serving.
refuse() {
    local what=$1 want=$2 text=$3 status=0
    shift 3
    timeout 30 "$@" >"$work/refusal.log" 2>&1 || status=$?
    local said
    said=$(grep -m1 -i "$text" "$work/refusal.log" || true)
    if [[ $status == 124 ]]; then
        fail "$what: the server served instead of refusing"
    elif [[ $want == nonzero && $status == 0 ]] || [[ $want != nonzero && $status != "$want" ]]; then
        fail "$what: exit status $status, not $want; it said: $(head -c 300 "$work/refusal.log")"
    elif [[ -z $said ]]; then
        fail "$what: exit status $status, but no '$text' in: $(head -c 300 "$work/refusal.log")"
    else
        echo "  $what: exit status $status: $said"
    fi
}
as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
refuse "a read-only database file" nonzero "read-only" "${as_nobody[@]}" "$refusals/shop-server" \
    --port "$broken_port" --database "$refusals/readonly-file/shop.sqlite"
refuse "a new database in a read-only folder" nonzero "not writable" "${as_nobody[@]}" "$refusals/shop-server" \
    --port "$broken_port" --database "$refusals/readonly-folder/shop.sqlite"
refuse "--fault missing-registration --hand-wired" 2 "missing-registration" "$bin" \
    --port "$broken_port" --database "$work/refused.sqlite" --fault missing-registration --hand-wired

echo "shutdown with a request stuck in flight and writes under way"
start stuck "$stuck_port"
snapshot stuck
# A client that sends an order's head and 15 of its 100 bytes, and waits.
if exec 4<>"/dev/tcp/127.0.0.1/$stuck_port"; then
    printf 'POST /orders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"accountID":1,' >&4
else
    fail "stuck: cannot connect"
fi
"$load_bin" --url "http://127.0.0.1:$stuck_port" --connections 16 --seconds 4 --run-id stuck \
    --record "$work/stuck-records" >"$work/stuck-load.out" 2>"$work/stuck-load.err" &
stuck_load_pid=$!
pids+=("$stuck_load_pid")
sleep 1.5
stop stuck
((stop_ms <= 10000)) || fail "stuck: the server took $stop_ms ms to exit after SIGTERM"
wait "$stuck_load_pid" || fail "stuck: shop-load failed"
forget "$stuck_load_pid"
exec 4>&-
echo "  the load during the shutdown (errors expected once the server stops): $(grep '^RESULT' "$work/stuck-load.out")"
check_data stuck --allow-unanswered

if [[ $mode == full ]]; then
    echo "pool sizes and cores: the Graft server on a new database each, 64 connections of the write mix for 5 s"
    for pool in 1 2 4 32; do
        for cores in one all; do
            name="pool${pool}_$cores"
            if [[ $cores == one ]]; then launcher=(taskset -c 0); else launcher=(); fi
            start "$name" "$matrix_port" --pool-size "$pool"
            launcher=()
            snapshot "$name" >/dev/null
            load "$matrix_port" 64 5 "$work/$name-records"
            describe "$name" "  ($(percent "$run_503" "$run_writes")% of writes)"
            ((run_errors == 0)) || fail "$name: $run_errors errors"
            awk -v s="$run_503" -v w="$run_writes" 'BEGIN { exit !(s * 100 > w) }' &&
                fail "$name: $run_503 answers 503, over 1% of $run_writes writes"
            stop "$name"
            check_data "$name"
        done
    done

    echo "crash: SIGKILL to a server under writes (256 connections), restarted on the same file"
    start crash "$crash_port"
    snapshot crash
    "$load_bin" --url "http://127.0.0.1:$crash_port" --connections 256 --seconds 8 --run-id crash \
        --record "$work/crash-records" --samples 3 >"$work/crash-load.out" 2>"$work/crash-load.err" &
    crash_load_pid=$!
    pids+=("$crash_load_pid")
    sleep 3
    kill -KILL "$crash_pid"
    wait "$crash_pid" 2>/dev/null || true
    forget "$crash_pid"
    wait "$crash_load_pid" || fail "crash: shop-load failed"
    forget "$crash_load_pid"
    crash_line=$(grep '^RESULT' "$work/crash-load.out")
    echo "  the load the kill cut short: $crash_line"
    start crash "$crash_port"
    load "$crash_port" 64 2 "$work/crash-records"
    describe "after restart"
    ((run_errors == 0)) || fail "crash: $run_errors errors after the restart"
    stop crash
    check_data crash --allow-unanswered
fi

by_status=()
for status in "${statuses[@]}"; do by_status+=("${status#s}: ${total_by_status[$status]:-0}"); done
echo "answers by status: $(IFS=,; echo "${by_status[*]}" | sed 's/,/, /g') (other: statuses the contract does not allow)"
echo "writes: $total_writes, answered 503: $total_503 ($(percent "$total_503" "$total_writes")%)"
awk -v s="$total_503" -v w="$total_writes" 'BEGIN { exit !(s * 100 > w) }' &&
    fail "$total_503 answers 503, over 1% of $total_writes writes"
((total_errors == 0)) || fail "$total_errors errors under load"
if ((data_problems == 0)); then data="consistent"; else data="$data_problems problems"; fi
printf 'load: %d requests, %d errors, throughput %.1f%% of hand-wired, singletons built once: %s, RSS growth %s MB, data: %s\n' \
    "$total_requests" "$total_errors" "$worst_ratio" "$singletons_once" "$rss_growth" "$data"
((${#failures[@]} == 0))
