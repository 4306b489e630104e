#!/usr/bin/env bash
# Runs every test: the Java suite (unit, protocol vectors, bad input, the race demos, redis-cli
# and redis-benchmark against the server; the lincheck tests run in a JVM of their own), which also
# builds target/dbf0.jar, a compile of the JMH benchmarks, the jcstress tests and the YCSB binding, then the
# Python suite in .venv (created here from requirements.txt and pyproject.toml):
# the grid, the results format, the analysis (and the 2020 study's raw file, vendored in benchmarks/upstream/), real sweeps, the sweep over SSH against a real sshd on 127.0.0.1, and the notebook.
# Needs a JDK 21+ and Python 3.11+ (both found automatically), and network access to Maven
# Central and PyPI the first time.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/lib/jdk.sh
. scripts/lib/venv.sh
dbf0_use_jdk
echo "test.sh: using JDK at $JAVA_HOME" >&2
./mvnw -B verify

# JMH micro-benchmarks (jmh/): compile them so they cannot rot; running them is scripts/jmh.sh.
./mvnw -B -q install -DskipTests
./mvnw -B -q -f jmh/pom.xml package
# jcstress tests (jcstress/), the same way: compiled here, run briefly by .ci/run, and at length by
# the commands in docs/4-correctness.md.
./mvnw -B -q -f jcstress/pom.xml package
# The YCSB binding (ycsb/): built and its tests run (the record format, and the binding against a
# real server on 127.0.0.1 with both connection kinds), so that it cannot rot either.
./mvnw -B -q -f ycsb/pom.xml package

dbf0_use_venv "$PWD"
echo "test.sh: Python format and lint (ruff) and tests with $(python --version) in .venv" >&2
ruff format --check --quiet . || { echo "test.sh: run 'ruff format .' (in .venv) to format" >&2; exit 1; }
ruff check --quiet .
python -m pytest
