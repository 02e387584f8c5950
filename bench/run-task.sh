#!/usr/bin/env bash
# The worker's own cost per record (decode, operators, state, encode), without Kafka: see
# bench/src/io/weir/bench/TaskBench.java. A benchmark, not a test: it prints figures.
#
#   bench/run-task.sh                                        # the example job, RocksDB state, 2,500 users
#   bench/run-task.sh bench/two-stage.yaml memory 10000 0     # the first stage (0) of the two-stage job
#
# MVN_FLAGS=-o builds offline.
set -euo pipefail
cd "$(dirname "$0")/.."

mvn -q ${MVN_FLAGS:-} compile
mvn -q ${MVN_FLAGS:-} dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/bench.classpath
rm -rf target/task-bench-classes
javac -d target/task-bench-classes -cp "target/classes:$(cat target/bench.classpath)" bench/src/io/weir/bench/TaskBench.java
java -Xmx2g -XX:+UseParallelGC -cp "target/task-bench-classes:target/classes:$(cat target/bench.classpath)" \
  io.weir.bench.TaskBench "$@" 2>&1 | grep --line-buffered -v '^[0-9:. ]*\(INFO\|WARN\|DEBUG\) '
