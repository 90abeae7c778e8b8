#!/usr/bin/env bash
n=$1
[ -f /tmp/gbs-$n ] || objcopy --strip-debug /tmp/gb-$n /tmp/gbs-$n
mkdir -p /tmp/wallclock-raw/cgplt-$n
SWIFT_DETERMINISTIC_HASHING=1 LD_BIND_NOW=1 valgrind --tool=callgrind --skip-plt=no \
  --dump-after='*instructionGateRun*' --callgrind-out-file=/tmp/wallclock-raw/cgplt-$n/callgrind.out \
  /tmp/gbs-$n --instruction-gate "transient resolve" > /tmp/wallclock-raw/cgplt-$n/gate.txt 2> /tmp/wallclock-raw/cgplt-$n/valgrind.log
