#!/usr/bin/env bash
# Builds target/dbf0.jar (the runnable jar with every dependency) without running the tests,
# with a JDK 21+ found the way every script here finds one (scripts/lib/jdk.sh).
#   ./build.sh              target/dbf0.jar
#   ./build.sh install      the same, and puts the library com.dbfromzero:dbf0 into ~/.m2
# Any further arguments go to Maven, e.g. ./build.sh -o for an offline build.
set -euo pipefail
cd "$(dirname "$0")"
goal=package
if [ "${1:-}" = install ]; then
  goal=install
  shift
fi
. scripts/lib/jdk.sh
dbf0_use_jdk
echo "build.sh: using JDK at $JAVA_HOME" >&2
./mvnw -B -q -DskipTests "$goal" "$@"
echo "build.sh: built $(pwd)/target/dbf0.jar" >&2
if [ "$goal" = install ]; then
  echo "build.sh: installed com.dbfromzero:dbf0 into the local Maven repository (~/.m2)" >&2
fi
