#!/usr/bin/env bash
# JMH micro-benchmarks of the record path's hot pieces, each against a baseline measured in the
# same run (bench/jmh/io/weir/bench/jmh): the codecs and the aggregate's state row (CodecBench),
# a keyed state's read-modify-write through the write-back cache vs RocksDB alone (StateBench),
# sending through a shared or per-thread transactional producer vs a plain one (SendBench).
# A benchmark, not a test: it prints figures. Arguments go to JMH, e.g.
#
#   bench/run-jmh.sh                          # everything (~8 minutes)
#   bench/run-jmh.sh CodecBench               # one class (a regular expression)
#   bench/run-jmh.sh StateBench -p keys=10000 -prof gc    # one parameter, allocation per operation
#
# MVN_FLAGS=-o builds offline.
set -euo pipefail
cd "$(dirname "$0")/.."

mvn -q ${MVN_FLAGS:-} compile
mvn -q ${MVN_FLAGS:-} -Pjmh dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=target/jmh.classpath
rm -rf target/jmh-classes
# The JMH annotation processor (on the class path) generates the harness and META-INF/BenchmarkList.
javac -d target/jmh-classes -cp "target/classes:$(cat target/jmh.classpath)" bench/jmh/io/weir/bench/jmh/*.java
java -cp "target/jmh-classes:target/classes:$(cat target/jmh.classpath)" org.openjdk.jmh.Main "$@" 2>&1 \
  | grep --line-buffered -v '^[0-9:. ]*\(INFO\|WARN\|DEBUG\) '
