#!/usr/bin/env bash
# Checkpoint figures of the RocksDB backend with snapshots in Kafka; see StateSnapshotBench.java.
# Usage: bench/state-snapshot.sh [keys=10000000] [rounds=20] [change=0.01] [dir=/tmp/weir-bench]
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -q compile dependency:build-classpath -Dmdep.outputFile=target/bench.classpath -Dmdep.includeScope=runtime
mkdir -p bench/results
java -Xmx3g -cp "target/classes:$(cat target/bench.classpath)" bench/StateSnapshotBench.java "$@" \
  | tee "bench/results/state-snapshot-$(date +%Y%m%d-%H%M%S).txt"
