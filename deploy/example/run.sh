#!/usr/bin/env bash
# Builds the example against the rnic artifacts installed in ~/.m2 (by `mvn install` or deploy/test.sh at the top
# level) and runs it with the JVM flags of the parent pom's rnic.jvm.flags (perf/target/jvm.options, written by the
# same build). Extra arguments go to Maven (e.g. -o); those after -- go to the example: none runs two in-memory
# endpoints, two driver directories run it through those drivers (deploy/example/run.sh -o -- DIR_A DIR_B).
# Exits with the example's status.
set -euo pipefail

maven_args=()
while (($#)); do
  if [[ $1 == -- ]]; then shift; break; fi
  maven_args+=("$1"); shift
done

here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/deploy/lib/find-jdk.sh"
rnic_find_jdk || { rnic_jdk_missing; exit 2; }
export JAVA_HOME=$RNIC_JAVA_HOME

options=$root/perf/target/jvm.options
if [[ ! -f $options ]]; then
  echo "example: $options is missing; run 'mvn install -DskipTests' at the top level first" >&2
  exit 2
fi

# offline, as the README promises an embedder: everything `package` needs was installed by rnic's own build
mvn -B -q -o -f "$here/pom.xml" "${maven_args[@]}" package
mvn -B -q -f "$here/pom.xml" "${maven_args[@]}" dependency:build-classpath \
  -Dmdep.outputFile="$here/target/classpath" -Dmdep.includeScope=runtime
exec "$JAVA_HOME/bin/java" @"$options" -cp "$here/target/rnic-example-0.1.0-SNAPSHOT.jar:$(<"$here/target/classpath")" \
  io.rnic.example.WriteReadExample "$@"
