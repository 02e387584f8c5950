#!/usr/bin/env bash
# Throughput and kill -9 recovery of the running-totals job on an embedded Kafka broker.
# A benchmark, not a test: it prints figures (and keeps them in bench/results/) and never fails on a time.
#
#   bench/run-throughput.sh                      # 2,000,000 orders, 4 partitions, 10,000 users, 3 recoveries
#   bench/run-throughput.sh --orders 500000 --verify --profile target/bench-profile
#
# Options go to io.weir.bench.ThroughputBench: --orders N, --users N, --partitions N,
# --recovery-rounds N, --verify (check each job's output with the verifier), --profile DIR (JFR
# recordings of the running-totals runs, summarised by io.weir.bench.ProfileSummary), --repeat N
# (each measured run N times; the table gives the median and the range), --warmup N (warm-up passes
# of every kind at most, default 3), --broker own-jvm (the
# broker in a JVM of its own, its CPU reported apart), --only-recovery (the kill -9 rounds alone;
# BENCH_CHILD_JAVA_OPTS adds options to their child JVM), --client-stats (the Kafka clients' batching:
# producer batch size and records per request, consumer fetch size, from JMX). MVN_FLAGS=-o builds offline; BENCH_JAVA_OPTS adds
# options to the benchmark JVM (e.g. -XX:+UseTransparentHugePages); BENCH_GC chooses its collector
# (default -XX:+UseParallelGC).
set -euo pipefail
cd "$(dirname "$0")/.."

mvn -q ${MVN_FLAGS:-} test-compile
mvn -q ${MVN_FLAGS:-} dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/bench.classpath
# The recovery rounds' child JVMs run from jars: a class-data archive maps classes from jars only.
mvn -q ${MVN_FLAGS:-} dependency:build-classpath -Dmdep.includeScope=runtime -Dmdep.outputFile=target/bench-runtime.classpath
rm -f target/bench-weir.jar
jar cf target/bench-weir.jar -C target/classes .

# The benchmark's own sources live here, not under src/test: it is a program, not a test.
rm -rf target/bench-classes
javac -d target/bench-classes -cp "target/classes:target/test-classes:$(cat target/bench.classpath)" \
  $(find bench/src -name '*.java')

mkdir -p bench/results
result="bench/results/throughput-$(date +%Y%m%d-%H%M%S).txt"
# DebugNonSafepoints makes --profile's samples point at the right inlined frame.
java ${BENCH_JAVA_OPTS:-} -Xmx2g ${BENCH_GC:--XX:+UseParallelGC} -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints \
  -cp "target/bench-classes:target/classes:target/test-classes:$(cat target/bench.classpath)" \
  io.weir.bench.ThroughputBench "$@" 2>&1 | grep --line-buffered -v '^[0-9:. ]*\(INFO\|WARN\|DEBUG\) ' | tee "$result"
echo "figures kept in $result"
