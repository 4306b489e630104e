#!/usr/bin/env bash
# Runs every test: the Java suite (unit, protocol vectors, bad input, the race demos) and
# builds target/dbf0.jar on the way. Needs only a JDK 21+ (found automatically) and network
# access to Maven Central the first time.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/lib/jdk.sh
dbf0_use_jdk
echo "test.sh: using JDK at $JAVA_HOME" >&2
./mvnw -B verify

# JMH micro-benchmarks (jmh/): compile them so they cannot rot; running them is scripts/jmh.sh.
./mvnw -B -q install -DskipTests
./mvnw -B -q -f jmh/pom.xml package
