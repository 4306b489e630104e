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

# $1 = the repository: sets, for $JAVA_HOME, DBF0_CHECK_KIND (aot, cds or off), DBF0_CHECK_ARCHIVE
# (the archive's path, named after the JDK's version and folder) and DBF0_CHECK_QUIET (the flags
# that keep the JVM quiet about it; -Xlog:aot exists from JDK 24 on). Without starting a process
# where it can: the launcher runs this before every check.
dbf0_check_cache_vars() {
  local home=${JAVA_HOME%/} major="" line ext=jsa
  if [ -r "$home/release" ]; then
    while IFS= read -r line; do
      if [[ $line =~ ^JAVA_VERSION=\"([0-9]+) ]]; then
        major=${BASH_REMATCH[1]}
        break
      fi
    done <"$home/release"
  fi
  [ -n "$major" ] || major=$(dbf0_java_major "$home")
  case "${DBF0_CHECK_CACHE:-on}" in
    off) DBF0_CHECK_KIND=off ;;
    cds) DBF0_CHECK_KIND=cds ;;
    *) if [ "${major:-0}" -ge 25 ]; then DBF0_CHECK_KIND=aot; else DBF0_CHECK_KIND=cds; fi ;;
  esac
  [ "$DBF0_CHECK_KIND" = aot ] && ext=aot
  DBF0_CHECK_ARCHIVE=$1/target/check-$major-${home##*/}.$ext
  DBF0_CHECK_QUIET=(-Xlog:cds=off)
  if [ "${major:-0}" -ge 24 ]; then DBF0_CHECK_QUIET+=(-Xlog:aot=off); fi
}

# $1 = the repository: makes the archive (replacing any), by checking the histories under
# lab/src/test/resources with target/dbf0.jar; about 2 s. Quiet; never fails: when the JVM makes
# none, an empty file stands in for it, which the launcher takes for "none, run without".
dbf0_check_cache_make() {
  local root=$1 part train=$1/lab/src/test/resources/histories
  dbf0_check_cache_vars "$root"
  [ "$DBF0_CHECK_KIND" != off ] && [ -d "$train" ] && [ -f "$root/target/dbf0.jar" ] || return 0
  part=$DBF0_CHECK_ARCHIVE.$$
  local make=(-XX:ArchiveClassesAtExit="$part")
  [ "$DBF0_CHECK_KIND" = aot ] && make=(-XX:AOTCacheOutput="$part")
  "$JAVA_HOME/bin/java" "${DBF0_CHECK_QUIET[@]}" "${make[@]}" -jar "$root/target/dbf0.jar" \
    check --format auto "$train"/etcd/*.log "$train"/kv/*.txt \
    >/dev/null 2>&1 || true # exit 1: some of them are not linearizable
  if [ -s "$part" ]; then
    mv -f "$part" "$DBF0_CHECK_ARCHIVE"
  else
    : >"$DBF0_CHECK_ARCHIVE"
  fi
  rm -f "$part" "$part.config"
}

# $1 = the repository: sets DBF0_CHECK_FLAGS (an array) to the flags a check runs with, making the
# archive first (saying so on stderr) unless it was made after both the jar and the JDK. An empty
# one (its making failed) counts as made, so that a failure is not retried on every check.
dbf0_check_cache_flags() {
  local root=$1
  DBF0_CHECK_FLAGS=()
  dbf0_check_cache_vars "$root"
  [ "$DBF0_CHECK_KIND" = off ] && return 0
  if ! { [ "$DBF0_CHECK_ARCHIVE" -nt "$root/target/dbf0.jar" ] &&
    [ "$DBF0_CHECK_ARCHIVE" -nt "$JAVA_HOME/lib/modules" ]; }; then
    echo "dbf0: caching the classes check loads in target/${DBF0_CHECK_ARCHIVE##*/} (build.sh" \
      "does it after each build)" >&2
    dbf0_check_cache_make "$root"
  fi
  [ -s "$DBF0_CHECK_ARCHIVE" ] || return 0
  DBF0_CHECK_FLAGS=("${DBF0_CHECK_QUIET[@]}")
  if [ "$DBF0_CHECK_KIND" = aot ]; then
    DBF0_CHECK_FLAGS+=(-XX:AOTCache="$DBF0_CHECK_ARCHIVE")
  else
    DBF0_CHECK_FLAGS+=(-XX:SharedArchiveFile="$DBF0_CHECK_ARCHIVE")
  fi
}
