#!/usr/bin/env bash
# Builds the JMH micro-benchmarks (jmh/target/benchmarks.jar) and runs them. Every argument goes
# to JMH: a regular expression picks benchmarks, -t threads, -f forks, -wi/-w warm-up
# iterations/time, -i/-r measured iterations/time, -p name=values a parameter, -h the full list.
#
#   scripts/jmh.sh                                      # everything, short (about 5 minutes)
#   scripts/jmh.sh MapBackendBenchmark -t 2 -p backend=concurrent
#   scripts/jmh.sh ProtocolBenchmark.v2_ -rf json -rff /tmp/v2.json
#
# Without arguments: one fork, 2 warm-up and 3 measured iterations of 1 s each. That is enough
# to see orders of magnitude, not to settle small differences; docs/testing.md says how to
# compare two builds. Set DBF0_JMH_SKIP_BUILD=1 to run the jar as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/jdk.sh
dbf0_use_jdk
if [ -z "${DBF0_JMH_SKIP_BUILD:-}" ]; then
  echo "jmh.sh: building with the JDK at $JAVA_HOME" >&2
  ./mvnw -B -q -DskipTests -pl jmh -am package
fi
if [ $# -eq 0 ]; then
  set -- -f 1 -wi 2 -w 1s -i 3 -r 1s
fi
exec java -jar jmh/target/benchmarks.jar "$@"
