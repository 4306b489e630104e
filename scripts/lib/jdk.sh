# shellcheck shell=bash
# Sourced by the entry scripts (build.sh, test.sh, demo.sh, dbf0): picks a JDK 21+ and exports
# JAVA_HOME, so that a machine whose default `java` is older (Debian 12 ships 17) still builds.
# Order: $JAVA_HOME if it is 21+, then the newest JDK under /usr/lib/jvm (and macOS's folder),
# then whatever `java` is on PATH. Fails with a message naming what to install.

dbf0_java_major() {  # $1 = a JDK home; prints its feature version (17, 21, 25...) or nothing
  local home=$1 v=""
  if [ -r "$home/release" ]; then
    v=$(sed -n 's/^JAVA_VERSION="\([0-9][0-9]*\).*/\1/p' "$home/release" | head -n 1)
  fi
  if [ -z "$v" ] && [ -x "$home/bin/java" ]; then
    v=$("$home/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9][0-9]*\).*/\1/p' | head -n 1)
  fi
  [ -x "$home/bin/javac" ] && printf '%s\n' "$v"
}

dbf0_find_jdk() {
  local need=21 best="" best_v=0 dir v
  if [ -n "${JAVA_HOME:-}" ]; then
    v=$(dbf0_java_major "$JAVA_HOME")
    if [ -n "$v" ] && [ "$v" -ge "$need" ]; then
      printf '%s\n' "$JAVA_HOME"; return 0
    fi
  fi
  for dir in /usr/lib/jvm/* /Library/Java/JavaVirtualMachines/*/Contents/Home; do
    [ -d "$dir" ] && [ ! -L "$dir" ] || continue
    v=$(dbf0_java_major "$dir")
    if [ -n "$v" ] && [ "$v" -ge "$need" ] && [ "$v" -gt "$best_v" ]; then
      best=$dir; best_v=$v
    fi
  done
  if [ -z "$best" ] && command -v javac >/dev/null 2>&1; then
    dir=$(cd "$(dirname "$(readlink -f "$(command -v javac)")")/.." && pwd)
    v=$(dbf0_java_major "$dir")
    if [ -n "$v" ] && [ "$v" -ge "$need" ]; then best=$dir; fi
  fi
  if [ -z "$best" ]; then
    cat >&2 <<MSG
dbf0: no JDK 21 or newer found (looked at JAVA_HOME, /usr/lib/jvm and the java on PATH).
Install one, for example:  apt-get install openjdk-21-jdk-headless   (Debian/Ubuntu)
                           brew install openjdk@21                   (macOS)
or point JAVA_HOME at an existing JDK 21+.
MSG
    return 1
  fi
  printf '%s\n' "$best"
}

dbf0_use_jdk() {
  local home
  home=$(dbf0_find_jdk) || return 1
  export JAVA_HOME=$home
  export PATH="$JAVA_HOME/bin:$PATH"
  # Maven 3.9's own jars (jansi, guava) trip JDK 24+'s warnings about native access and
  # sun.misc.Unsafe on every build; these flags only exist from JDK 24 on. Added to whatever
  # MAVEN_OPTS already holds (a heap size, a proxy), unless it names them itself.
  if [ "$(dbf0_java_major "$home")" -ge 24 ]; then
    local flag opts=${MAVEN_OPTS:-}
    for flag in --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow; do
      case " $opts " in
        *" ${flag%%=*}="*) ;;
        *) opts="${opts:+$opts }$flag" ;;
      esac
    done
    export MAVEN_OPTS=$opts
  fi
}
