#!/usr/bin/env bash
# The main job: set-up (packages, JDK 25 check), then `bin/rnic demo` with this script's arguments.
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
bash "$root/deploy/setup.sh"
exec "$root/bin/rnic" demo "$@"
