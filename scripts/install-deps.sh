#!/usr/bin/env bash
# Installs every build, test and benchmark dependency of ipisim from Debian packages.
# Used by README.md and .ci/run. Needs root (or sudo).
set -euo pipefail
PKGS=(
  build-essential cmake ninja-build pkg-config ccache
  libcli11-dev libtomlplusplus-dev nlohmann-json3-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev libhwloc-dev hwloc
  libnlopt-cxx-dev  # NLopt, the optimizer of ipisim calibrate (docs/uncertainty.md)
  libeigen3-dev     # Eigen, the fit's covariance in ipisim calibrate (experiment/fit_uncertainty.h)
  clang-format clang-tidy
  gnuplot-nox  # plots (report/plot.h, ipisim plot)
  chromium     # the HTML report's rendering test (tests/report/html_report_test.cpp)
  parallel     # GNU parallel: the shard/merge test (tests/cli/shard_merge.cmake)
  python3      # the reliability corpus (tests/reliability) and the fuzz mutants (tests/fuzz/mutate.py)
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
