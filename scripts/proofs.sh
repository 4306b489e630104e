#!/usr/bin/env bash
# The long proofs, kept apart from ./test.sh as each kind of evidence has its own place (CI runs
# both, on every change):
#   1. thousands of simulated power cuts on the LSM store (leveled and tiered) and on the B+tree,
#      zero acknowledged writes lost (JUnit tag "proof"; ./test.sh runs a few hundred of each);
#   2. jcstress, briefly: ConcurrentHashMapLostUpdate must never lose a put.
# About two minutes on 2 cores. Needs what ./test.sh needs; builds what it lacks.
#   scripts/proofs.sh            both
#   scripts/proofs.sh cuts       the power cuts only
#   scripts/proofs.sh jcstress   jcstress only
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/jdk.sh
dbf0_use_jdk
what=${1:-all}
case $what in
  all | cuts | jcstress) ;;
  *)
    echo "proofs.sh: error: unknown proof '$what'" >&2
    echo "usage: scripts/proofs.sh [all|cuts|jcstress]" >&2
    exit 2
    ;;
esac

if [ "$what" != jcstress ]; then
  echo "proofs.sh: thousands of power cuts (LSM leveled, LSM tiered, B+tree)" >&2
  started=$(date +%s)
  rm -f library/target/surefire-reports/*PowerLossTest-output.txt # ./test.sh's, not these
  # -Dtest keeps the lincheck execution, which names its own group, from running as well.
  ./mvnw -B -ntp -q -pl library -am test -Dgroups=proof -Dtest='*PowerLossTest' \
    -Dsurefire.failIfNoSpecifiedTests=false
  for report in library/target/surefire-reports/*PowerLossTest-output.txt; do
    grep -h 'power loss' "$report" || true
  done
  echo "proofs.sh: power cuts passed in $(($(date +%s) - started)) s" >&2
fi

if [ "$what" != cuts ]; then
  echo "proofs.sh: jcstress, briefly: ConcurrentHashMapLostUpdate must never lose a put" >&2
  # Quick mode cut to one 100 ms iteration per JVM configuration: about a minute, a few million
  # samples (sanity mode takes a few hundred, too few to see HashMap's race at all). A forbidden
  # outcome makes jcstress exit 1; its report is read as well, so that a run which never reached
  # the test cannot pass. Run in a directory of its own, since jcstress leaves its result file in
  # the current one.
  jar=$PWD/jcstress/target/jcstress.jar
  [ -f "$jar" ] || ./mvnw -B -ntp -q -DskipTests -pl jcstress -am package
  jcs=$(mktemp -d)
  trap 'rm -rf "$jcs"' EXIT
  started=$(date +%s)
  if ! (cd "$jcs" && timeout 300 java --enable-native-access=ALL-UNNAMED -jar "$jar" \
    -t '\.ConcurrentHashMapLostUpdate' -m quick -iters 1 -time 100 -v -r "$jcs/results" \
    -jvmArgsPrepend --enable-native-access=ALL-UNNAMED) >"$jcs/log" 2>&1 ||
    ! grep -qF '[OK] dbf0.jcstress.ConcurrentHashMapLostUpdate' "$jcs/log" ||
    grep -qF '[FAILED]' "$jcs/log" ||
    ! grep -qF 'Failed tests: No matches.' "$jcs/log" ||
    ! grep -qF 'Error tests: No matches.' "$jcs/log"; then
    cat "$jcs/log" >&2
    echo "proofs.sh: jcstress saw a forbidden outcome, or did not finish: its output is above" >&2
    exit 1
  fi
  sed -n '/^RUN RESULTS:/,$p' "$jcs/log"
  echo "proofs.sh: jcstress passed in $(($(date +%s) - started)) s" >&2
fi
