#!/usr/bin/env bash
# Installs the Debian 12 packages symbolite needs. Usage: scripts/install-deps.sh [build|test]
#   build: compiler, CMake, the libraries symbolite links, and pybind11 with Python's headers
#          and numpy for the Python module (enough to build and run it all)
#   test:  also GoogleTest, clang for the fuzz harnesses, clang-format and clang-tidy (lint.sh), PyTorch 1.13 for the interop suite,
#          pytest, Valgrind, Chromium to open the profile report headless, QEMU's user-mode
#          emulator to run the tests on other CPUs (isa_paths.sh), and speedscope
#          (from npm, into .deps/) to open its trace
# Runs apt-get only when something is missing, so repeated runs are quick.
set -euo pipefail

profile=${1:-build}
packages=(g++ cmake make ccache pkg-config zlib1g-dev libfmt-dev nlohmann-json3-dev libcli11-dev libxxhash-dev libdeflate-dev
          libmimalloc-dev libopenblas-serial-dev libsleef-dev libdnnl-dev libxnnpack-dev libpthreadpool-dev
          pybind11-dev python3-dev python3-numpy)
if [ "$profile" = test ]; then
  packages+=(libgtest-dev googletest libbenchmark-dev clang libclang-rt-14-dev clang-format clang-tidy
             python3-torch libtorch-dev python3-torchvision python3-pytest valgrind chromium
             python3-dask python3-distributed python3-pandas qemu-user)
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

# The test profile also fetches speedscope (a flame-graph viewer that reads Chrome traces, MIT)
# from npm's registry, for tests/report/check_trace_in_viewer.py: Perfetto's UI and trace
# processor are in neither Debian nor npm, and Chromium 156 has no chrome://tracing. The
# tarball is checked against npm's sha512 and unpacked into .deps/ (ignored by git).
if [ "$profile" = test ]; then
  root="$(cd "$(dirname "$0")/.." && pwd)"
  version=1.25.0
  dest="$root/.deps/speedscope-$version"
  if [ ! -f "$dest/dist/release/index.html" ]; then
    echo "fetching speedscope $version from registry.npmjs.org"
    /usr/bin/python3 - "$version" "$dest" <<'PY'
import base64, hashlib, io, os, sys, tarfile, urllib.request
version, dest = sys.argv[1], sys.argv[2]
url = f"https://registry.npmjs.org/speedscope/-/speedscope-{version}.tgz"
integrity = "cpf9HWTZf1ijLXBJrk87Ve/54tnYx6rlf0gUThvn3ook6h63hLXVOQiMf44PT+XoV503cPfvfiT5gP5vojp6Ag=="
data = urllib.request.urlopen(url, timeout=60).read()
if base64.b64encode(hashlib.sha512(data).digest()).decode() != integrity:
    sys.exit(f"{url}: sha512 does not match npm's integrity record")
os.makedirs(dest, exist_ok=True)
with tarfile.open(fileobj=io.BytesIO(data)) as tar:
    for member in tar.getmembers():
        # npm tarballs hold one folder, "package/": strip it, refuse anything else.
        if not member.name.startswith("package/") or ".." in member.name.split("/"):
            sys.exit(f"{url}: unexpected entry {member.name}")
        if member.isfile():
            path = os.path.join(dest, member.name[len("package/"):])
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as out:
                out.write(tar.extractfile(member).read())
PY
  fi
fi
