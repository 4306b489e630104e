#!/usr/bin/env bash
# Runs YCSB's own client (through the dbf0 binding in ycsb/) and dbf0 bench on the same YCSB
# workload, record count, connections and duration, each against a fresh `dbf0 server`, and
# prints both throughputs, p99 latencies, the ratio, and the CPU each client and the server spent
# per operation.
#
#   scripts/ycsb_vs_bench.sh [WORKLOAD [RECORDS [THREADS [SECONDS [ROUNDS]]]]]   # defaults: A 100000 4 10 1
#
# With ROUNDS > 1 the two alternate (YCSB, bench, YCSB, bench, ...) and the medians are printed
# too, so that a noisy machine hits both sides alike.
#
# What is made the same: blocking v2 connections, one per client thread, one operation at a time
# (bench --client-mode persistent, the binding's default dbf0.connection=blocking); a 1,120-byte
# value (YCSB's 10 fields of 100 bytes in the binding's format); 23-byte keys (YCSB's "user" and a
# hashed number is 22-23 bytes); and one SET per update: YCSB runs with writeallfields=true, since
# by default its update writes one field, which the binding can only do by reading the record and
# writing it back (two round trips). Set DBF0_YCSB_PARTIAL_UPDATES=1 to keep YCSB's default. What
# still differs: YCSB's read-modify-write (F) is two round trips, bench's one frame; each side's
# own client code (docs/ycsb.md has the measured costs). DBF0_YCSB_SKIP_BUILD=1 uses the jars as
# they are; DBF0_JAR and DBF0_YCSB_JAR name other jars (and skip the build);
# DBF0_YCSB_CONNECTION=client runs the binding over KeyValueClient instead.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/jdk.sh
dbf0_use_jdk

workload=${1:-A}
records=${2:-100000}
threads=${3:-4}
seconds=${4:-10}
rounds=${5:-1}
port=${DBF0_YCSB_PORT:-19577}
connection=${DBF0_YCSB_CONNECTION:-blocking}
case "$rounds" in ''|*[!0-9]*|0) echo "ycsb_vs_bench.sh: ROUNDS is a positive whole number, got '$rounds'" >&2; exit 2 ;; esac

jar=${DBF0_JAR:-target/dbf0.jar}
ycsb_jar=${DBF0_YCSB_JAR:-ycsb/target/dbf0-ycsb.jar}
if [ -z "${DBF0_YCSB_SKIP_BUILD:-}${DBF0_JAR:-}${DBF0_YCSB_JAR:-}" ]; then
  ./mvnw -B -q -DskipTests -pl lab,ycsb -am package
fi

# YCSB's published core workloads, as properties (the workloads/ files are not in the core jar)
case "$workload" in
  A) mix="-p readproportion=0.5 -p updateproportion=0.5 -p requestdistribution=zipfian" ;;
  B) mix="-p readproportion=0.95 -p updateproportion=0.05 -p requestdistribution=zipfian" ;;
  C) mix="-p readproportion=1 -p updateproportion=0 -p requestdistribution=zipfian" ;;
  D) mix="-p readproportion=0.95 -p updateproportion=0 -p insertproportion=0.05 -p requestdistribution=latest" ;;
  F) mix="-p readproportion=0.5 -p updateproportion=0 -p readmodifywriteproportion=0.5 -p requestdistribution=zipfian" ;;
  *) echo "ycsb_vs_bench.sh: workload is A, B, C, D or F (bench has no scans: run E with YCSB alone, see docs/ycsb.md)" >&2; exit 2 ;;
esac
if [ -z "${DBF0_YCSB_PARTIAL_UPDATES:-}" ]; then mix="$mix -p writeallfields=true"; fi

out=$(mktemp -d /tmp/dbf0-ycsb.XXXXXX)
server_pid=
start_server() {
  java -jar "$jar" server --server-model nio --threads 2 --map concurrent --bind 127.0.0.1 --port "$port" \
    >>"$out/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do
    if (exec 3<>/dev/tcp/127.0.0.1/"$port") 2>/dev/null; then return; fi
    sleep 0.1
  done
  echo "ycsb_vs_bench.sh: the server did not start; see $out/server.log" >&2
  exit 1
}
stop_server() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=
  fi
}
trap stop_server EXIT
# CPU seconds (user + system) the server has used so far (Linux /proc; fields 14 and 15 in ticks)
server_cpu() { awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' /proc/"$server_pid"/stat; }
# runs a command, its stdout to $1, and writes its children's CPU seconds to $1.cpu; with
# STEADY=T0:T1, also the process's own CPU seconds from T0 to T1 s after its start to $1.steady
# (the run's steady part: no JVM start, no warm-up)
timed() {
  local file=$1; shift
  python3 -c 'import os, resource, subprocess, sys, time
def cpu(pid):
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
p = subprocess.Popen(sys.argv[2:], stdout=open(sys.argv[1], "w"), stderr=subprocess.DEVNULL)
if os.environ.get("STEADY"):
    t0, t1 = map(float, os.environ["STEADY"].split(":"))
    time.sleep(t0); c0 = cpu(p.pid); time.sleep(t1 - t0); c1 = cpu(p.pid)
    open(sys.argv[1] + ".steady", "w").write(f"{c1 - c0} {t1 - t0}")
code = p.wait()
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1] + ".cpu", "w").write(str(r.ru_utime + r.ru_stime))
sys.exit(code)' "$file" "$@"
}

# shellcheck disable=SC2206 # $mix is several words on purpose
ycsb_args=(-db dbf0.ycsb.Dbf0Client -p workload=site.ycsb.workloads.CoreWorkload -p dbf0.port="$port"
  -p dbf0.connection="$connection" -p recordcount="$records" -p operationcount=2000000000
  -p maxexecutiontime="$seconds" -threads "$threads" $mix)

summary=$out/summary.tsv
for round in $(seq "$rounds"); do
  start_server
  timed "$out/ycsb-load.txt" java -jar "$ycsb_jar" -load "${ycsb_args[@]}"
  s0=$(server_cpu)
  STEADY=2.5:$((seconds > 4 ? seconds - 1 : 3)).5 timed "$out/ycsb-run.txt" java -jar "$ycsb_jar" -t "${ycsb_args[@]}"
  s1=$(server_cpu)
  stop_server
  y_ops=$(awk -F', ' '/^\[OVERALL\], Throughput/ {print $3}' "$out/ycsb-run.txt")
  y_ms=$(awk -F', ' '/^\[OVERALL\], RunTime/ {print $3}' "$out/ycsb-run.txt")
  y_p99=$(awk -F', ' '/^\[(READ|UPDATE|INSERT|READ-MODIFY-WRITE)\], 99thPercentileLatency/ {printf "%s %s ", $1, $3}' "$out/ycsb-run.txt")

  start_server
  s2=$(server_cpu)
  timed "$out/bench.json" java -jar "$jar" bench 2 "$threads" concurrent 23 1120 0.5 "${seconds}s" \
    --client-mode persistent --connect 127.0.0.1:"$port" --workload "$workload" --records "$records"
  s3=$(server_cpu)
  stop_server
  python3 - "$round" "$y_ops" "$y_ms" "$(cat "$out/ycsb-run.txt.cpu")" "$s0" "$s1" "$out/bench.json" "$seconds" \
    "$(cat "$out/bench.json.cpu")" "$s2" "$s3" "$y_p99" "$(cat "$out/ycsb-run.txt.steady")" >>"$summary" <<'PY'
import json, sys
(rnd, y_ops, y_ms, y_cpu, s0, s1, bench, secs, b_cpu, s2, s3, y_p99, y_steady) = sys.argv[1:]
y_ops = float(y_ops); y_n = y_ops * float(y_ms) / 1000
b = json.load(open(bench)); b_ops = b["ops_per_sec"]; b_n = b_ops * float(secs)
us = lambda cpu, n: 1e6 * float(cpu) / n
print("\t".join(str(x) for x in [rnd, round(y_ops), round(b_ops), round(b_ops / y_ops, 2),
      round(us(y_cpu, y_n), 1), round(us(b_cpu, b_n), 1),
      round(us(y_steady.split()[0], y_ops * float(y_steady.split()[1])), 1), b["process_cpu_us_per_op"],
      round(us(float(s1) - float(s0), y_n), 1), round(us(float(s3) - float(s2), b_n), 1), b["p99_us"], y_p99]))
PY
done

echo "workload $workload, $records records, $threads client threads, ${seconds} s, nio server with 2 loops, binding over $connection"
echo "client CPU per operation: whole (the process: JVM start and, for bench, its load phase included) and"
echo "steady (YCSB: 2.5 s after start to 1 s before the end; bench: its measured interval);"
echo "the server's during YCSB's run phase, and during bench's load phase and run."
python3 - "$summary" <<'PY'
import statistics, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
print("round  YCSB ops/s  bench ops/s  bench/YCSB  client us/op whole: YCSB bench; steady: YCSB bench"
      "  server us/op YCSB bench  p99 us bench; YCSB")
for r in rows:
    print(f"{r[0]:>5}  {r[1]:>10}  {r[2]:>11}  {r[3]:>10}  {r[4]:>24} {r[5]:>5}; {r[6]:>13} {r[7]:>5}"
          f"  {r[8]:>17} {r[9]:>5}  {r[10]}; {r[11]}")
if len(rows) > 1:
    med = lambda i: statistics.median(float(r[i]) for r in rows)
    print(f"median {med(1):>10.0f}  {med(2):>11.0f}  {med(3):>10.2f}  {med(4):>24.1f} {med(5):>5.1f}; "
          f"{med(6):>13.1f} {med(7):>5.1f}  {med(8):>17.1f} {med(9):>5.1f}")
PY
rm -rf "$out"
