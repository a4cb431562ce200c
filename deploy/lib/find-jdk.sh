# shellcheck shell=bash disable=SC2034 # the RNIC_* variables are for the scripts that source this
# Sourced by bin/rnic and deploy/*.sh: finds a JDK 25 or newer. Defines functions and RNIC_* variables only.
#
#   rnic_find_jdk     returns 0 with RNIC_JAVA_HOME set to the JDK's home (RNIC_JAVA_MAJOR to its version),
#                     or 1 with RNIC_JDK_LOOKED listing where it looked. Call it directly, not in $(...).
#   rnic_jdk_missing  prints (to stderr) that JDK 25 is required, where it looked and how to get one.
#
# Order: $JAVA_HOME, /usr/lib/jvm/*25*, any other /usr/lib/jvm/*, then `java` on PATH.

RNIC_JDK_MIN=25

# Major version of a java binary ("25" for 'openjdk version "25.0.1"', "8" for "1.8.0_402"), or nothing.
rnic_java_major() {
  local v
  v=$("$1" -version 2>&1 | sed -n 's/^[^"]* version "\([^"]*\)".*/\1/p' | head -n 1)
  v=${v#1.}
  printf '%s' "${v%%[!0-9]*}"
}

# rnic_try_jdk HOME: succeeds, setting RNIC_JAVA_HOME, when HOME/bin/java is a JDK >= 25.
rnic_try_jdk() {
  local home=${1%/} real major
  real=$(readlink -f "$home" 2>/dev/null || printf '%s' "$home")
  case $'\n'$rnic_jdk_seen$'\n' in *$'\n'$real$'\n'*) return 1 ;; esac
  rnic_jdk_seen+=$real$'\n'
  if [[ ! -x $home/bin/java ]]; then
    RNIC_JDK_LOOKED+="  $home: no bin/java"$'\n'
    return 1
  fi
  major=$(rnic_java_major "$home/bin/java")
  if [[ -n $major && $major -ge $RNIC_JDK_MIN ]]; then
    RNIC_JAVA_HOME=$home
    RNIC_JAVA_MAJOR=$major
    return 0
  fi
  RNIC_JDK_LOOKED+="  $home: java ${major:-of unknown version}"$'\n'
  return 1
}

rnic_find_jdk() {
  local home java
  RNIC_JAVA_HOME="" RNIC_JAVA_MAJOR="" RNIC_JDK_LOOKED="" rnic_jdk_seen=""
  if [[ -n ${JAVA_HOME:-} ]]; then
    rnic_try_jdk "$JAVA_HOME" && return 0
  else
    RNIC_JDK_LOOKED+="  JAVA_HOME: not set"$'\n'
  fi
  if [[ -d /usr/lib/jvm ]]; then
    for home in /usr/lib/jvm/*25*/ /usr/lib/jvm/*/; do
      [[ -d $home ]] && rnic_try_jdk "$home" && return 0
    done
    [[ -n $rnic_jdk_seen ]] || RNIC_JDK_LOOKED+="  /usr/lib/jvm: empty"$'\n'
  else
    RNIC_JDK_LOOKED+="  /usr/lib/jvm: does not exist"$'\n'
  fi
  if java=$(command -v java); then
    java=$(readlink -f "$java")
    rnic_try_jdk "${java%/bin/java}" && return 0
  else
    RNIC_JDK_LOOKED+="  PATH: no java"$'\n'
  fi
  return 1
}

rnic_jdk_missing() {
  printf 'rnic needs JDK %s or newer (FFM, Vector API) and found none. Looked at:\n%s' \
    "$RNIC_JDK_MIN" "${RNIC_JDK_LOOKED:-  (nowhere)$'\n'}" >&2
  cat >&2 <<MSG
Debian 12 does not package JDK $RNIC_JDK_MIN: install Eclipse Temurin $RNIC_JDK_MIN (it installs to
/usr/lib/jvm/temurin-$RNIC_JDK_MIN-jdk-amd64; see https://adoptium.net/installation/linux/), or set
JAVA_HOME to a JDK $RNIC_JDK_MIN.
MSG
}
