#!/usr/bin/env bash
# usage: alternate.sh ROUNDS OUTDIR bin1 bin2 ...   (order rotates: each round runs every binary once, in order)
rounds=$1; out=$2; shift 2
mkdir -p "$out"
for r in $(seq 1 $rounds); do
  for b in "$@"; do
    name=$(basename $b)
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    ns=$(GRAFT_BENCH_ONLY="transient resolve" GRAFT_BENCH_ROUNDS=30 $b 2>&1 | awk -F'|' '/^\| transient resolve/{gsub(/ /,"",$3); print $3; exit}')
    echo -e "$r\t$name\t$ns\t$load" | tee -a "$out/rounds.tsv"
  done
done
