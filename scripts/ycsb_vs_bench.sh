#!/usr/bin/env bash
# Runs YCSB's own client (through the dbf0 binding in ycsb/) and dbf0 bench on the same YCSB
# workload, record count, connections and duration, each against a fresh `dbf0 server`, and
# prints both throughputs and p99 latencies.
#
#   scripts/ycsb_vs_bench.sh [WORKLOAD [RECORDS [THREADS [SECONDS]]]]    # defaults: A 100000 4 10
#
# Both sides use blocking v2 connections, one per client thread, one operation at a time (bench
# --client-mode persistent). What still differs, and is printed: YCSB's records are 10 fields of
# 100 bytes (1,120 bytes in the binding's format) under 23-byte "user..." keys, bench's are one
# 1,120-byte value under 16-byte keys; YCSB's update writes one field, so the binding reads the
# record and writes it back (two round trips) where bench writes once; YCSB's F does its read and
# write in two round trips, bench's in one frame. Set DBF0_YCSB_SKIP_BUILD=1 to use the jars as
# they are.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/jdk.sh
dbf0_use_jdk

workload=${1:-A}
records=${2:-100000}
threads=${3:-4}
seconds=${4:-10}
port=${DBF0_YCSB_PORT:-19577}

if [ -z "${DBF0_YCSB_SKIP_BUILD:-}" ]; then
  ./mvnw -B -q install -DskipTests
  ./mvnw -B -q -f ycsb/pom.xml package
fi

# YCSB's published core workloads, as properties (the workloads/ files are not in the core jar)
case "$workload" in
  A) mix="-p readproportion=0.5 -p updateproportion=0.5 -p requestdistribution=zipfian" ;;
  B) mix="-p readproportion=0.95 -p updateproportion=0.05 -p requestdistribution=zipfian" ;;
  C) mix="-p readproportion=1 -p updateproportion=0 -p requestdistribution=zipfian" ;;
  D) mix="-p readproportion=0.95 -p updateproportion=0 -p insertproportion=0.05 -p requestdistribution=latest" ;;
  F) mix="-p readproportion=0.5 -p updateproportion=0 -p readmodifywriteproportion=0.5 -p requestdistribution=zipfian" ;;
  *) echo "ycsb_vs_bench.sh: workload is A, B, C, D or F (E needs range scans, which dbf0 has not)" >&2; exit 2 ;;
esac

server_pid=
start_server() {
  java -jar target/dbf0.jar server --server-model nio --threads 2 --map concurrent --bind 127.0.0.1 --port "$port" \
    2>/tmp/dbf0-ycsb-server.log &
  server_pid=$!
  for _ in $(seq 100); do
    if (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null; then return; fi
    sleep 0.1
  done
  echo "ycsb_vs_bench.sh: the server did not start; see /tmp/dbf0-ycsb-server.log" >&2
  exit 1
}
stop_server() {
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
}
trap stop_server EXIT

ycsb() {
  java -jar ycsb/target/dbf0-ycsb.jar "$1" -db dbf0.ycsb.Dbf0Client -p workload=site.ycsb.workloads.CoreWorkload \
    -p dbf0.port="$port" -p recordcount="$records" -p operationcount=2000000000 -p maxexecutiontime="$seconds" \
    -threads "$threads" $mix 2>/dev/null
}

start_server
ycsb -load > /tmp/dbf0-ycsb-load.txt
ycsb -t > /tmp/dbf0-ycsb-run.txt
stop_server
ycsb_ops=$(awk -F', ' '/^\[OVERALL\], Throughput/ {print $3}' /tmp/dbf0-ycsb-run.txt)
ycsb_p99=$(awk -F', ' '/^\[(READ|UPDATE|INSERT|READ-MODIFY-WRITE)\], 99thPercentileLatency/ {printf "%s %s  ", $1, $3}' /tmp/dbf0-ycsb-run.txt)

start_server
bench_json=$(java -jar target/dbf0.jar bench 2 "$threads" concurrent 16 1120 0.5 "${seconds}s" --client-mode persistent \
  --connect 127.0.0.1:"$port" --workload "$workload" --records "$records" 2>/dev/null)
stop_server
bench_ops=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["ops_per_sec"])' "$bench_json")
bench_p99=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["p99_us"])' "$bench_json")

echo "workload $workload, $records records, $threads client threads, ${seconds} s, nio server with 2 loops"
echo "YCSB 0.17.0 + dbf0 binding: ${ycsb_ops} ops/s; p99 us per operation: ${ycsb_p99}"
echo "dbf0 bench --workload:      ${bench_ops} ops/s; p99 us, all operations: ${bench_p99}"
