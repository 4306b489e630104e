#!/usr/bin/env bash
# Runs every test: the Java suite of every module (the library's unit, protocol-vector, bad-input
# and lincheck tests, the latter in a JVM of their own; the lab's end-to-end tests: the command
# line, the race demos, redis-cli and redis-benchmark against the server; the YCSB binding's), which
# also builds target/dbf0.jar, the JMH benchmarks and the jcstress tests; then the Python suite in .venv (created here from requirements.txt and pyproject.toml):
# the grid, the results format, the analysis (and the 2020 study's raw file, vendored in benchmarks/upstream/), real sweeps, the sweep over SSH against a real sshd on 127.0.0.1, and the notebook.
# Needs a JDK 21+ and Python 3.11+ (both found automatically), and network access to Maven
# Central and PyPI the first time.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/lib/jdk.sh
. scripts/lib/venv.sh
dbf0_use_jdk
echo "test.sh: using JDK at $JAVA_HOME" >&2
# One build of every module (pom.xml lists them): the JMH benchmarks and jcstress tests are
# compiled so that they cannot rot (scripts/jmh.sh runs the first, .ci/run one of the second).
./mvnw -B verify

dbf0_use_venv "$PWD"
echo "test.sh: Python format and lint (ruff) and tests with $(python --version) in .venv" >&2
ruff format --check --quiet . || { echo "test.sh: run 'ruff format .' (in .venv) to format" >&2; exit 1; }
ruff check --quiet .
python -m pytest
