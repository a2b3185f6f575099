#!/usr/bin/env bash
# Installs the Debian 12 packages symbolite needs. Usage: scripts/install-deps.sh [build|test]
#   build: compiler, CMake, the libraries symbolite links, and pybind11 with Python's headers
#          and numpy for the Python module (enough to build and run it all)
#   test:  also GoogleTest, clang for the fuzz harnesses, PyTorch 1.13 for the interop suite,
#          pytest, Valgrind, and Chromium to open the profile report headless
# Runs apt-get only when something is missing, so repeated runs are quick.
set -euo pipefail

profile=${1:-build}
packages=(g++ cmake make ccache pkg-config zlib1g-dev libfmt-dev nlohmann-json3-dev libcli11-dev libxxhash-dev
          libopenblas-serial-dev libsleef-dev libdnnl-dev libxnnpack-dev libpthreadpool-dev
          pybind11-dev python3-dev python3-numpy)
if [ "$profile" = test ]; then
  packages+=(libgtest-dev googletest libbenchmark-dev clang libclang-rt-14-dev
             python3-torch libtorch-dev python3-torchvision python3-pytest valgrind chromium
             python3-dask python3-distributed python3-pandas)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
