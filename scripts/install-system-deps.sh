#!/usr/bin/env bash
# Debian packages the test suite and the benchmark use. Idempotent; needs root (or sudo).
#   prometheus (brings promtool)   the live-Prometheus integration tests and the benchmark
#   victoria-metrics               the same audit against VictoriaMetrics single-node
#   chromium                       renders the HTML report in the browser test
#   python3-prometheus-client      the Python peer in the benchmark (and its agreement test)
#   time                           /usr/bin/time, peak memory in the benchmark
#
# `npm test` runs it with --if-allowed first: nothing when every package is there; else it
# installs them as root or through password-less sudo, and where it may not, it says in one
# line what to run and fails (the suite would fail later, less clearly).
set -euo pipefail
packages=(prometheus victoria-metrics chromium python3-prometheus-client time)
if_allowed=false
[ "${1:-}" = '--if-allowed' ] && if_allowed=true

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  echo "gpu-audit tests: not a Debian system: install ${packages[*]} (or their equivalents: promtool, victoria-metrics, chromium, python3's prometheus_client, GNU time) yourself, or run npm run test:unit" >&2
  exit 1
fi
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
done
[ "${#missing[@]}" -eq 0 ] && exit 0
sudo=''
if [ "$(id -u)" -ne 0 ]; then
  if $if_allowed && ! sudo -n true 2>/dev/null; then
    echo "gpu-audit tests need the Debian packages ${missing[*]}: run sudo bash scripts/install-system-deps.sh, then npm test again" >&2
    exit 1
  fi
  sudo='sudo'
fi
$if_allowed && echo "gpu-audit tests: installing the Debian packages ${missing[*]} (scripts/install-system-deps.sh)" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update
$sudo apt-get install -y --no-install-recommends "${missing[@]}"
