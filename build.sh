#!/usr/bin/env bash
# Builds target/dbf0.jar (the runnable jar: the lab's commands with every dependency inside)
# without running the tests or the linters, with a JDK 21+ found the way every script here finds
# one (scripts/lib/jdk.sh).
#   ./build.sh              target/dbf0.jar, and the archive of the classes dbf0 check loads
#                           (target/check-*.aot or .jsa: scripts/lib/check_cache.sh)
#   ./build.sh install      the library alone, com.dbfromzero:dbf0 (and the parent pom it names),
#                           into the local Maven repository; says which folder that was
# Any further arguments go to Maven, e.g. ./build.sh -o for an offline build, or
# ./build.sh install -Dmaven.repo.local=/some/dir.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/lib/jdk.sh
dbf0_use_jdk
echo "build.sh: using JDK at $JAVA_HOME" >&2
# Without the tests and the linters (Spotless, Checkstyle): ./test.sh and ./mvnw verify run those,
# and an edit that is not yet formatted should still build and run.
quick=(-DskipTests -Dspotless.check.skip=true -Dcheckstyle.skip=true)
if [ "${1:-}" = install ]; then
  shift
  ./mvnw -B -q "${quick[@]}" -pl library -am install "$@"
  # Where Maven put it: -Dmaven.repo.local, else settings.xml's localRepository, else ~/.m2.
  repo=$(./mvnw -B -q -N "$@" org.apache.maven.plugins:maven-help-plugin:3.5.1:evaluate \
    -Dexpression=settings.localRepository -DforceStdout 2>/dev/null) || repo=""
  where=${repo:+$repo/com/dbfromzero/dbf0/}
  echo "build.sh: installed com.dbfromzero:dbf0 into ${where:-the local Maven repository}" >&2
  exit 0
fi
./mvnw -B -q "${quick[@]}" -pl lab -am package "$@"
echo "build.sh: built $(pwd)/target/dbf0.jar" >&2
# The archive of the classes `dbf0 check` loads, so that even the first check after a build starts
# from it (scripts/lib/check_cache.sh; DBF0_CHECK_CACHE=off skips it).
. scripts/lib/check_cache.sh
dbf0_check_cache_make "$(pwd)"
if [ -s "$DBF0_CHECK_ARCHIVE" ]; then
  echo "build.sh: cached the classes dbf0 check loads in $DBF0_CHECK_ARCHIVE" >&2
elif [ "$DBF0_CHECK_KIND" != off ]; then
  echo "build.sh: could not cache the classes dbf0 check loads; checks run without" >&2
fi
