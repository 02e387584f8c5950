#!/usr/bin/env bash
# What a restore pays to read the checkpoint topic: a fresh reader against the instance's kept one,
# on an in-process broker: see bench/src/io/weir/bench/CheckpointReadBench.java. A benchmark, not a
# test: it prints figures.
#
#   bench/run-checkpoint-read.sh                 # 12 tasks, 600 checkpoints each, 7 reads
#   bench/run-checkpoint-read.sh 64 600 5        # tasks, checkpoints per task, reads
#
# MVN_FLAGS=-o builds offline.
set -euo pipefail
cd "$(dirname "$0")/.."

mvn -q ${MVN_FLAGS:-} compile
mvn -q ${MVN_FLAGS:-} dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/bench.classpath
rm -rf target/checkpoint-read-bench-classes
javac -d target/checkpoint-read-bench-classes -cp "target/classes:$(cat target/bench.classpath)" \
  bench/src/io/weir/bench/CheckpointReadBench.java
java -Xmx1g -cp "target/checkpoint-read-bench-classes:target/classes:$(cat target/bench.classpath)" \
  io.weir.bench.CheckpointReadBench "$@" 2>&1 | grep --line-buffered -v '^[0-9:. ]*\(INFO\|WARN\|DEBUG\) '
