#!/usr/bin/env bash
# Runs every test, quietly, and ends with one summary of the counts of each suite and of what
# skipped and why:
#   the Java suite of every module (pom.xml): the library's unit, protocol-vector, bad-input,
#   power-cut and lincheck tests (the latter in JVMs of their own), the lab's end-to-end tests
#   (the command line, the race demos, redis-cli and redis-benchmark against the server), the
#   replication module's (Raft groups in one JVM) and the YCSB binding's;
#   the same build makes target/dbf0.jar and compiles the JMH benchmarks and jcstress tests, so
#   that they cannot rot (scripts/jmh.sh runs the first, scripts/proofs.sh one of the second);
#   then the Python suite in .venv (created here from requirements.txt and pyproject.toml): the
#   grid, the results format, the analysis (and the 2020 study's raw file, vendored in
#   benchmarks/upstream/), real sweeps, the sweep over SSH against a real sshd on 127.0.0.1, and
#   the notebook.
# The long proofs (thousands of power cuts, jcstress) are scripts/proofs.sh's; CI runs both.
# A failure prints its details, and nothing else does. Needs a JDK 21+ and Python 3.11+ (both
# found automatically), and network access to Maven Central and PyPI the first time.
#   VERBOSE=1 ./test.sh      Maven's and pytest's full output instead
set -euo pipefail
cd "$(dirname "$0")"
started=$(date +%s)
. scripts/lib/jdk.sh
. scripts/lib/venv.sh
dbf0_use_jdk
echo "test.sh: using JDK at $JAVA_HOME" >&2
quiet=(-q)
pyquiet=(-q -rfE)
# Two processes: most of a Python test's time waits on the JVMs it starts.
workers=(-n "${DBF0_TEST_WORKERS:-2}")
if [ -n "${VERBOSE:-}" ]; then quiet=(); pyquiet=(); fi
# Reports of an earlier run would be counted again in the summary.
rm -rf library/target/surefire-reports lab/target/surefire-reports ycsb/target/surefire-reports
# The Python environment is made while Maven runs: pip waits on the network, Maven on the CPU.
dbf0_find_python >/dev/null
mkdir -p target
(dbf0_use_venv "$PWD") > target/venv-setup.log 2>&1 &
venv_job=$!
echo "test.sh: the Java build and tests of every module (./mvnw verify, a few minutes)" >&2
./mvnw -B -ntp "${quiet[@]}" verify -DexcludedGroups=proof

wait "$venv_job" || { cat target/venv-setup.log >&2; exit 1; }
dbf0_use_venv "$PWD"
echo "test.sh: Python format and lint (ruff) and tests with $(python --version) in .venv" >&2
ruff format --check --quiet . || { echo "test.sh: run 'ruff format .' (in .venv) to format" >&2; exit 1; }
ruff check --quiet .
status=0
python -m pytest "${workers[@]}" "${pyquiet[@]}" --junitxml=target/python-tests.xml -o junit_family=xunit2 || status=$?
echo
python scripts/test_summary.py --python target/python-tests.xml --seconds $(( $(date +%s) - started )) || status=1
exit "$status"
