#!/usr/bin/env bash
# Builds target/dbf0.jar (the runnable jar with every dependency) without running the tests.
# Any extra arguments go to Maven, e.g. ./build.sh -o for an offline build.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/lib/jdk.sh
dbf0_use_jdk
echo "build.sh: using JDK at $JAVA_HOME" >&2
./mvnw -B -q -DskipTests package "$@"
echo "build.sh: built $(pwd)/target/dbf0.jar" >&2
