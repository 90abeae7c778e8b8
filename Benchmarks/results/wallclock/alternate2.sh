#!/usr/bin/env bash
# usage: alternate2.sh ROUNDS OUTDIR bin1 bin2 ... ; records Graft ns/op and the in-process floors
rounds=$1; out=$2; shift 2
mkdir -p "$out"
for r in $(seq 1 $rounds); do
  for b in "$@"; do
    name=$(basename $b)
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    o=$(GRAFT_BENCH_ONLY="transient resolve" GRAFT_BENCH_ROUNDS=30 $b 2>&1)
    echo "$o" > "$out/r$r-$name.txt"
    ns=$(echo "$o" | awk -F'|' '/^\| transient resolve/{gsub(/ /,"",$3); print $3; exit}')
    fl=$(echo "$o" | awk '/^floor lookup \+ allocation:/{print $(NF-1)}')
    fb=$(echo "$o" | awk '/^floor bare allocation/{print $(NF-1)}')
    echo -e "$r\t$name\t$ns\t$fl\t$fb\t$load" | tee -a "$out/rounds.tsv"
  done
done
