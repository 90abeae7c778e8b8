#!/usr/bin/env bash
# cg.sh NAME : callgrind with cache+branch sim, dumps after each instructionGateRun
n=$1
objcopy --strip-debug /tmp/gb-$n /tmp/gbs-$n
mkdir -p /tmp/wallclock-raw/cg-$n
SWIFT_DETERMINISTIC_HASHING=1 LD_BIND_NOW=1 valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes \
  --dump-after='*instructionGateRun*' --callgrind-out-file=/tmp/wallclock-raw/cg-$n/callgrind.out \
  /tmp/gbs-$n --instruction-gate "transient resolve" > /tmp/wallclock-raw/cg-$n/gate.txt 2> /tmp/wallclock-raw/cg-$n/valgrind.log
