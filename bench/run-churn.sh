#!/usr/bin/env bash
# Exactly-once under instance churn, against a broker in a process of its own (as in production and
# in the container test, unlike the test suite's in-process broker): one of four example jobs runs
# as several `weir run` processes while orders arrive; every few seconds one instance is killed -9
# (or, one time in three, stopped with SIGTERM) and restarted, at once or, every second event, after
# --down seconds (past the session timeout, 10 s here, its partitions move to the others, and back
# when it returns).
# Once the group has committed the end of the input, io.weir.bench.ChurnCheck checks the
# read_committed output against the input. A check, not a benchmark: exits 1 when the output is wrong.
# It also prints, after each event, the longest gap in committed output overall and in the worst
# output partition (from when a read_committed reader got records: io.weir.bench.OutputGaps).
#
#   bench/run-churn.sh                                   # windows (user-counts-per-minute), 3 instances, 6 events
#   bench/run-churn.sh --job buckets --down 15           # the two-stage bucket-totals job; moves between instances
#   bench/run-churn.sh --job dedupe --orders 200000 --rate 4000
#   bench/run-churn.sh --job join --down 15              # order-payments: two co-partitioned inputs
#   bench/run-churn.sh --job totals --down 0 --events 10 # running totals, every instance back at once
#
# Options: --job windows|dedupe|buckets|join|totals, --orders N (120000), --rate N per second (2500), --users N
# (500), --partitions N (6), --instances N (3), --events N (churn events, 6), --down S (seconds a
# stopped instance stays down, on every second event; 2), --port P (the broker's, 29092; the
# controller's is P+1), --cds on|off (off: on starts the instances with a class-data archive made
# as the image makes its own). MVN_FLAGS=-o builds offline. Logs in target/churn/<job>-<time>/.
set -euo pipefail
cd "$(dirname "$0")/.."

job=windows orders=120000 rate=2500 users=500 partitions=6 instances=3 events=6 down=2 port=29092 cds=off
while [ $# -gt 0 ]; do
  case "$1" in
    --job) job=$2 ;; --orders) orders=$2 ;; --rate) rate=$2 ;; --users) users=$2 ;;
    --partitions) partitions=$2 ;; --instances) instances=$2 ;; --events) events=$2 ;;
    --down) down=$2 ;; --port) port=$2 ;; --cds) cds=$2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
case "$job" in
  windows) example=user-counts-per-minute input=events output=user-counts-per-minute duplicates=0 ;;
  dedupe) example=dedupe-orders input=orders output=orders-unique duplicates=7 ;;
  buckets) example=bucket-totals input=orders output=bucket-totals duplicates=0 ;;
  join) example=order-payments input=orders output=orders-with-payments ;;
  totals) example=running-totals input=orders output=totals ;;
  *) echo "--job is windows, dedupe, buckets, join or totals, was $job" >&2; exit 2 ;;
esac

mvn -q ${MVN_FLAGS:-} package -DskipTests
jar=$PWD/target/weir-dev.jar
rm -rf target/churn-classes
javac -d target/churn-classes -cp "$jar" bench/src/io/weir/bench/ChurnCheck.java bench/src/io/weir/bench/OutputGaps.java
check() { java -cp "target/churn-classes:$jar" io.weir.bench.ChurnCheck "$@"; }

dir=$PWD/target/churn/$job-$(date +%Y%m%d-%H%M%S)
mkdir -p "$dir"
jvm=(-Xmx400m -XX:+UseSerialGC)
if [ "$cds" = on ]; then
  # As the image builds its class-data archive: the classes a short `weir dev` run loads.
  java -XX:DumpLoadedClassList="$dir/weir.classlist" -jar "$jar" dev --duration 10 --port $((port + 5)) \
    > "$dir/classlist-run.log" 2>&1 || true
  java -Xshare:dump -XX:SharedClassListFile="$dir/weir.classlist" -XX:SharedArchiveFile="$dir/weir.jsa" \
    -cp "$jar" > "$dir/cds-dump.log" 2>&1
  jvm+=(-XX:SharedArchiveFile="$dir/weir.jsa" -Xshare:auto)
fi
bootstrap=localhost:$port
declare -A pids
broker= watcher=
cleanup() {
  for p in "${pids[@]}" $watcher; do kill -9 "$p" 2>/dev/null || true; done
  [ -n "$broker" ] && kill "$broker" 2>/dev/null || true
}
trap cleanup EXIT

KAFKA_PORT=$port KAFKA_CONTROLLER_PORT=$((port + 1)) KAFKA_CONF=$dir/kafka.properties \
  KAFKA_LOG_DIRS=$dir/kafka-logs WEIR_DEV_JAR=$jar sh .ci/kafka/start-kafka > "$dir/broker.log" 2>&1 &
broker=$!
up=
for _ in $(seq 120); do
  kill -0 "$broker" 2>/dev/null || break
  (echo > "/dev/tcp/localhost/$port") 2>/dev/null && { up=1; break; }
  sleep 0.5
done
[ -n "$up" ] || { echo "the broker did not start on port $port (is another one there?): see $dir/broker.log" >&2; exit 1; }

java -cp "target/churn-classes:$jar" io.weir.bench.ChurnCheck watch "$bootstrap" "$output" "$dir/arrivals.txt" \
  > "$dir/watch.log" 2>&1 &
watcher=$!
event() { echo "$(date +%s%3N) $*" >> "$dir/events.ms"; }
event "start"
if [ "$job" = join ]; then
  check produce-paid "$bootstrap" "$orders" "$rate" "$partitions" > "$dir/produce.log" 2>&1 &
elif [ "$job" = totals ]; then
  check produce-totals "$bootstrap" "$input" "$orders" "$rate" "$users" "$partitions" > "$dir/produce.log" 2>&1 &
else
  check produce "$bootstrap" "$input" "$orders" "$rate" "$users" "$partitions" "$duplicates" > "$dir/produce.log" 2>&1 &
fi
producer=$!
start() {
  java "${jvm[@]}" -jar "$jar" run --config "config/examples/$example.yaml" \
    --set kafka.bootstrap="$bootstrap" --set instance-id="i$1" --set http.port=$((port + 10 + $1)) \
    --set processing.state.dir="$dir/state" --set kafka.consumer.session.timeout.ms=10000 \
    >> "$dir/i$1.log" 2>&1 &
  pids[$1]=$!
}
for i in $(seq "$instances"); do start "$i"; done
# The first event once every instance runs partitions: before, a gap would be the start's.
for i in $(seq "$instances"); do
  for _ in $(seq 240); do grep -q ' partitions from {' "$dir/i$i.log" 2>/dev/null && break; sleep 0.5; done
done
event "all running"
for e in $(seq "$events"); do
  sleep $((5 + RANDOM % 6))
  i=$((1 + RANDOM % instances))
  if ! kill -0 "${pids[$i]}" 2>/dev/null; then
    echo "i$i exited by itself: see $dir/i$i.log" >&2
    exit 1
  fi
  pause=0
  [ $((e % 2)) = 0 ] && pause=$down
  if [ $((RANDOM % 3)) = 0 ]; then how=SIGTERM; kill "${pids[$i]}"; else how="kill -9"; kill -9 "${pids[$i]}"; fi
  event "$how i$i, back after ${pause} s"
  wait "${pids[$i]}" 2>/dev/null || true
  echo "$(date +%T) $how i$i, restarted after ${pause} s" | tee -a "$dir/events.log"
  sleep "$pause"
  start "$i"
done
wait "$producer"
echo "$(date +%T) input written ($(tail -1 "$dir/produce.log"))"
status=0
check verify "$job" "$bootstrap" "$input" "$output" "$example" 2>&1 | grep -v ' DEBUG ' | tee "$dir/verify.log" || status=$?
event "verified"
kill "$watcher" 2>/dev/null || true
check gaps "$dir/arrivals.txt" "$dir/events.ms" | tee "$dir/gaps.log" || true
echo "logs in $dir"
exit $status
