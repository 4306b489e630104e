# shellcheck shell=bash
# Sourced by build.sh and the dbf0 launcher, after dbf0_use_jdk (scripts/lib/jdk.sh): the archive
# of the classes `dbf0 check` loads. A check lasts a fraction of a second, much of it the JVM
# loading and linking classes, so it starts from an archive of them (class-data sharing), made by
# build.sh right after the jar, for the JDK it built with, by checking the histories under
# lab/src/test/resources once. The launcher uses it while it is newer than both the jar and the
# JDK, and otherwise makes it again first.
#   JDK 25+     target/check-25-NAME.aot: an AOT cache, the classes loaded and linked, with method
#               profiles (the JVM writes a configuration, then a second JVM assembles the cache)
#   JDK 21-24   target/check-21-NAME.jsa: a dynamic CDS archive of the classes the check loaded
# DBF0_CHECK_CACHE=off: no archive, made or used; =cds: the CDS archive whatever the JDK (so that
# a JDK 25 exercises what a JDK 21 does). A stale or unreadable archive is ignored by the JVM,
# silently; the check runs as it would without.

# The kind of archive for $JAVA_HOME: aot, cds or off.
dbf0_check_cache_kind() {
  case "${DBF0_CHECK_CACHE:-on}" in
    off) echo off ;;
    cds) echo cds ;;
    *) if [ "$(dbf0_java_major "$JAVA_HOME")" -ge 25 ]; then echo aot; else echo cds; fi ;;
  esac
}

# $1 = the repository: the archive's path for $JAVA_HOME (named after its version and folder).
dbf0_check_cache_path() {
  local ext=jsa
  [ "$(dbf0_check_cache_kind)" = aot ] && ext=aot
  printf '%s/target/check-%s-%s.%s\n' "$1" "$(dbf0_java_major "$JAVA_HOME")" \
    "$(basename "$JAVA_HOME")" "$ext"
}

# $1 = the repository: whether the archive was made after the jar and after the JDK was installed.
# An empty one (its making failed) counts as made: the launcher does not retry on every check.
dbf0_check_cache_fresh() {
  local cache
  cache=$(dbf0_check_cache_path "$1")
  [ "$cache" -nt "$1/target/dbf0.jar" ] && [ "$cache" -nt "$JAVA_HOME/lib/modules" ]
}

# Flags that keep the JVM quiet about its archive: -Xlog:aot exists from JDK 24 on.
dbf0_check_cache_quiet() {
  if [ "$(dbf0_java_major "$JAVA_HOME")" -ge 24 ]; then
    echo -Xlog:cds=off -Xlog:aot=off
  else
    echo -Xlog:cds=off
  fi
}

# $1 = the repository: makes the archive (replacing any), by checking the histories under
# lab/src/test/resources with target/dbf0.jar; about 2 s. Quiet; never fails: when the JVM makes
# none, an empty file stands in for it, which the launcher treats as "none, run without".
dbf0_check_cache_make() {
  local root=$1 kind cache part train
  kind=$(dbf0_check_cache_kind)
  train=$root/lab/src/test/resources/histories
  [ "$kind" != off ] && [ -d "$train" ] && [ -f "$root/target/dbf0.jar" ] || return 0
  cache=$(dbf0_check_cache_path "$root")
  part=$cache.$$
  local make=(-XX:ArchiveClassesAtExit="$part")
  [ "$kind" = aot ] && make=(-XX:AOTCacheOutput="$part")
  # shellcheck disable=SC2046 # the flags are words
  "$JAVA_HOME/bin/java" $(dbf0_check_cache_quiet) "${make[@]}" \
    -jar "$root/target/dbf0.jar" check --format auto "$train"/etcd/*.log "$train"/kv/*.txt \
    >/dev/null 2>&1 || true # exit 1: some of them are not linearizable
  if [ -s "$part" ]; then
    mv -f "$part" "$cache"
  else
    : >"$cache"
  fi
  rm -f "$part" "$part.config"
}

# $1 = the repository: sets DBF0_CHECK_FLAGS (an array) to the flags a check runs with, making the
# archive first if it is missing or stale (saying so on stderr).
dbf0_check_cache_flags() {
  local root=$1 kind cache
  DBF0_CHECK_FLAGS=()
  kind=$(dbf0_check_cache_kind)
  [ "$kind" = off ] && return 0
  cache=$(dbf0_check_cache_path "$root")
  if ! dbf0_check_cache_fresh "$root"; then
    echo "dbf0: caching the classes check loads in target/$(basename "$cache") (build.sh does" \
      "it after each build)" >&2
    dbf0_check_cache_make "$root"
  fi
  [ -s "$cache" ] || return 0
  # shellcheck disable=SC2207 # the flags are words
  DBF0_CHECK_FLAGS+=($(dbf0_check_cache_quiet))
  if [ "$kind" = aot ]; then
    DBF0_CHECK_FLAGS+=(-XX:AOTCache="$cache")
  else
    DBF0_CHECK_FLAGS+=(-XX:SharedArchiveFile="$cache")
  fi
}
