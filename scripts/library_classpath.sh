#!/usr/bin/env bash
# What a project that imports dbf0 gets: installs the library (./build.sh install), makes a
# consumer project in a temporary folder whose one class is the README's example, prints its
# dependency tree (mvn dependency:tree), builds and runs the example, and sums the jars on its
# runtime class path. Fails if the example does not print what the README promises, or if the
# class path is over the README's budget of 15 MB.
#   scripts/library_classpath.sh                              into ~/.m2 (or settings.xml's)
#   scripts/library_classpath.sh -Dmaven.repo.local=DIR       anywhere else
# Every argument goes to each Maven call.
set -euo pipefail
cd "$(dirname "$0")/.."
budget=$((15 * 1000 * 1000))
./build.sh install "$@"
. scripts/lib/jdk.sh
dbf0_use_jdk
version=$(sed -n 's|^  <version>\(.*\)</version>|\1|p' pom.xml | head -n 1)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/src/main/java/example"
cat >"$dir/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>uses-dbf0</artifactId>
  <version>1</version>
  <properties>
    <maven.compiler.release>21</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency>
      <groupId>com.dbfromzero</groupId>
      <artifactId>dbf0</artifactId>
      <version>$version</version>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-compiler-plugin</artifactId>
        <version>3.14.1</version>
      </plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-resources-plugin</artifactId>
        <version>3.3.1</version>
      </plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-dependency-plugin</artifactId>
        <version>3.9.0</version>
      </plugin>
    </plugins>
  </build>
</project>
POM
# The README's ```java block inside a main method, with the imports its "(Imports: ...)" names.
python3 - README.md "$dir/src/main/java/example/Main.java" <<'PY'
import re
import sys

readme = open(sys.argv[1], encoding="utf-8").read()
code = re.search(r"```java\n(.*?)```", readme, re.S).group(1)
named = re.search(r"\(Imports: (.*?)\.\)", readme, re.S).group(1)
imports = []
for item in re.findall(r"`([^`]+)`", named):
    package, _, rest = item.partition("{")
    names = rest.rstrip("}").split(",") if rest else [""]
    imports += [package + n.strip() for n in names]
body = "\n".join("        " + line for line in code.splitlines())
with open(sys.argv[2], "w", encoding="utf-8") as out:
    out.write("package example;\n\n" + "".join(f"import {name};\n" for name in imports))
    out.write("\npublic class Main {\n    public static void main(String[] args) throws Exception {\n")
    out.write(body + "\n    }\n}\n")
PY
mvn=("$PWD/mvnw" -B -f "$dir/pom.xml" "$@")
echo "library_classpath: mvn dependency:tree of a project that depends on com.dbfromzero:dbf0:$version"
# One Maven run: the tree (its lines kept from the log), the build, the class path into a file.
"${mvn[@]}" dependency:tree -Dscope=runtime compile dependency:build-classpath \
  -Dmdep.includeScope=runtime -Dmdep.outputFile="$dir/classpath" >"$dir/maven.log" ||
  { cat "$dir/maven.log" >&2; exit 1; }
sed -n 's/^\[INFO\] \([| ]*[+\\]- .*\)$/  \1/p' "$dir/maven.log"
classpath="$dir/target/classes:$(cat "$dir/classpath")"
printed=$(java -cp "$classpath" example.Main 2>/dev/null)
if ! grep -qx '2a' <<<"$printed" || ! grep -qx '2a true' <<<"$printed"; then
  echo "library_classpath: the README's example printed, not 2a then 2a true:" >&2
  printf '%s\n' "$printed" >&2
  exit 1
fi
echo "library_classpath: the README's example ran and printed: $(tr '\n' ' ' <<<"$printed")"
jars=$(tr ':' '\n' <"$dir/classpath")
count=$(grep -c . <<<"$jars")
bytes=$(xargs stat -c %s <<<"$jars" | awk '{s += $1} END {print s}')
mb=$(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1e6}')
echo "library_classpath: runtime class path: $count jars, $mb MB (budget: $((budget / 1000000)) MB)"
if [ "$bytes" -gt "$budget" ]; then
  echo "library_classpath: over budget: a library user would carry these:" >&2
  xargs ls -l <<<"$jars" | sort -k5 -rn | head -n 5 >&2
  exit 1
fi
