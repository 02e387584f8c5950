#!/usr/bin/env bash
# Event-time jobs (windows, a join) next to running totals on an embedded Kafka broker.
# A benchmark, not a test: it prints figures (and keeps them in bench/results/) and never fails on a time.
#
#   bench/run-event-time.sh                      # 1,000,000 events, 4 partitions, 10,000 users
#   bench/run-event-time.sh --events 300000
#
# Options go to io.weir.bench.EventTimeBench: --events N, --users N, --partitions N.
# Set MVN_FLAGS=-o to build offline.
set -euo pipefail
cd "$(dirname "$0")/.."

mvn -q ${MVN_FLAGS:-} test-compile
mvn -q ${MVN_FLAGS:-} dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/bench.classpath

# The benchmark's own sources live here, not under src/test: it is a program, not a test.
rm -rf target/bench-classes
javac -d target/bench-classes -cp "target/classes:target/test-classes:$(cat target/bench.classpath)" \
  $(find bench/src -name '*.java')

mkdir -p bench/results
result="bench/results/event-time-$(date +%Y%m%d-%H%M%S).txt"
# DebugNonSafepoints makes --profile's samples point at the right inlined frame.
java -Xmx2g -XX:+UseParallelGC -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints \
  -cp "target/bench-classes:target/classes:target/test-classes:$(cat target/bench.classpath)" \
  io.weir.bench.EventTimeBench "$@" 2>&1 | grep --line-buffered -v '^[0-9:. ]*\(INFO\|WARN\|DEBUG\) ' | tee "$result"
echo "figures kept in $result"
