#!/usr/bin/env bash
# Installs the rnic driver as a systemd service (as root): copies the built launcher and jar to PREFIX, installs
# rnic-driver@.service (its /opt/rnic paths replaced by PREFIX), /etc/rnic/driver.env.example, creates the system
# user and group `rnic` the driver runs as, and reloads systemd. Then: systemctl enable --now rnic-driver@eth0.
#
#   deploy/service/install.sh [--prefix DIR] [--unit-dir DIR] [--conf-dir DIR] [--no-unit] [--files-only]
#                             [--allow-missing-jar]
#
#   --prefix DIR         where the tree goes (default /opt/rnic)
#   --unit-dir DIR       where the unit goes (default /etc/systemd/system)
#   --conf-dir DIR       where driver.env.example goes (default /etc/rnic)
#   --no-unit            the tree only, no unit and no env example (a container image)
#   --files-only         no user, no group, no systemctl (a staging directory, an image, the check)
#   --allow-missing-jar  install the launcher and scripts even when perf/target/rnic.jar is not built or is stale
#                        (the check)
#
# Build first (bin/rnic help builds the jar, or mvn -DskipTests package). The tree is what bin/rnic needs to run a
# built jar: bin/rnic, deploy/lib, deploy/service, perf/target/rnic.jar and jvm.options, README.md, and the parent
# pom.xml with its time kept: the launcher rebuilds when a source or pom is newer than the jar, and the installed
# tree has neither sources nor Maven, so the jar must stay the newest.
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
prefix=/opt/rnic
unit_dir=/etc/systemd/system
conf_dir=/etc/rnic
unit=yes
system=yes
allow_missing_jar=no

usage() {
  sed -n '6,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

while (($#)); do
  case $1 in
    --prefix) prefix=${2:?--prefix needs a directory}; shift ;;
    --unit-dir) unit_dir=${2:?--unit-dir needs a directory}; shift ;;
    --conf-dir) conf_dir=${2:?--conf-dir needs a directory}; shift ;;
    --no-unit) unit=no ;;
    --files-only) system=no ;;
    --allow-missing-jar) allow_missing_jar=yes ;;
    -h|--help) usage ;;
    *) echo "install: unknown option $1" >&2; usage ;;
  esac
  shift
done
[[ $prefix == /* ]] || { echo "install: --prefix must be an absolute path, not $prefix" >&2; exit 2; }

jar=$root/perf/target/rnic.jar
options=$root/perf/target/jvm.options
if [[ -f $jar && -f $options ]]; then
  shopt -s nullglob
  newer=$(find "$root"/*/src "$root"/pom.xml "$root"/*/pom.xml -newer "$jar" -print -quit)
  shopt -u nullglob
  if [[ -n $newer && $allow_missing_jar == no ]]; then
    echo "install: $jar is older than $newer: rebuild it first (bin/rnic help)" >&2
    exit 1
  fi
elif [[ $allow_missing_jar == no ]]; then
  echo "install: $jar is not built: build it first (bin/rnic help, or mvn -DskipTests package)" >&2
  exit 1
fi

if [[ $system == yes && $EUID -ne 0 ]]; then
  echo "install: run as root (or --files-only)" >&2
  exit 1
fi

install -d -m 0755 "$prefix/bin" "$prefix/deploy/lib" "$prefix/deploy/service" "$prefix/perf/target"
install -p -m 0755 "$root/bin/rnic" "$prefix/bin/rnic"
install -p -m 0644 "$root/deploy/lib/find-jdk.sh" "$prefix/deploy/lib/find-jdk.sh"
install -p -m 0755 "$root/deploy/service/rnic-driver-run.sh" "$root/deploy/service/rnic-hugepages.sh" \
  "$prefix/deploy/service/"
install -p -m 0644 "$root/README.md" "$root/pom.xml" "$prefix/"
if [[ -f $jar && -f $options ]]; then
  install -p -m 0644 "$jar" "$options" "$prefix/perf/target/"
fi
echo "install: tree in $prefix"

if [[ $unit == yes ]]; then
  install -d -m 0755 "$unit_dir" "$conf_dir"
  sed "s|/opt/rnic/|$prefix/|g" "$root/deploy/service/rnic-driver@.service" > "$unit_dir/rnic-driver@.service"
  chmod 0644 "$unit_dir/rnic-driver@.service"
  install -m 0644 "$root/deploy/service/driver.env.example" "$conf_dir/driver.env.example"
  echo "install: $unit_dir/rnic-driver@.service, $conf_dir/driver.env.example"
fi

if [[ $system == yes ]]; then
  getent group rnic >/dev/null || groupadd --system rnic
  getent passwd rnic >/dev/null ||
    useradd --system --gid rnic --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin rnic
  if [[ $unit == yes && -d /run/systemd/system ]]; then
    systemctl daemon-reload
  fi
  echo "install: user and group rnic; next: cp $conf_dir/driver.env.example $conf_dir/driver-eth0.env (edit it)," \
    "systemctl enable --now rnic-driver@eth0"
fi
