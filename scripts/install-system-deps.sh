#!/usr/bin/env bash
# Debian packages the test suite and the benchmark use. Idempotent; needs root (or sudo).
#   prometheus (brings promtool)   the live-Prometheus integration tests and the benchmark
#   chromium                       renders the HTML report in the browser test
#   python3-prometheus-client      the Python peer in the benchmark (and its agreement test)
#   time                           /usr/bin/time, peak memory in the benchmark
set -euo pipefail
packages=(prometheus chromium python3-prometheus-client time)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
[ "${#missing[@]}" -eq 0 ] && exit 0
sudo=''
[ "$(id -u)" -eq 0 ] || sudo='sudo'
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update
$sudo apt-get install -y --no-install-recommends "${missing[@]}"
