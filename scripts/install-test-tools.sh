#!/usr/bin/env bash
# Installs the outside programs that integration tests drive, from Debian's packages:
#   redis-tools (redis-cli, redis-benchmark), redis-server (for the side-by-side comparison),
#   openssh-server (the sweep's remote-host path, tested against a real sshd on loopback).
# Needs root and apt-get; elsewhere it says what is missing and exits 0, and the tests that need
# a missing program skip with that reason.
set -uo pipefail
need=()
command -v redis-cli >/dev/null 2>&1 && command -v redis-benchmark >/dev/null 2>&1 || need+=(redis-tools)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
[ -x /usr/sbin/sshd ] || need+=(openssh-server)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-test-tools: not installing ${need[*]} (needs root and apt-get); the tests that use them will skip" >&2
  exit 0
fi
echo "install-test-tools: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}"; } >/tmp/install-test-tools.log 2>&1; then
  echo "install-test-tools: apt-get failed (see /tmp/install-test-tools.log); the tests that need ${need[*]} will skip" >&2
fi
# Debian starts a redis-server service on install; tests start their own on free ports.
if command -v service >/dev/null 2>&1; then service redis-server stop >/dev/null 2>&1 || true; fi
exit 0
