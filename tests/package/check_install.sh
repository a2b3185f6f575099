#!/usr/bin/env bash
# `cmake --install` into a scratch prefix, then everything a user of the installed package
# does, with nothing from the source or build tree on the include or library path:
#   - the prefix holds the CLI, libsymbolite.{a,so}, the public headers with the headers they
#     include (and no other: no CLI or kernel headers), the CMake package and symbolite.pc;
#   - examples/consumer builds with find_package(symbolite), against the shared and the static
#     library, and with pkg-config; each symbolicates a handle as the installed CLI does and
#     runs nested.ptl's forward with the output PyTorch computed;
#   - the Python package imports from the prefix's dist-packages and symbolicates alike.
#   check_install.sh BUILD_DIR SOURCE_DIR PYTHON
set -euo pipefail
build=$1 source=$2 python=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
fail() { echo "package.install: $*" >&2; exit 1; }
[ -x "$prefix/bin/symbolite" ] || fail "no bin/symbolite"
libdir=$(dirname "$(find "$prefix" -name libsymbolite.a)")
[ -f "$libdir/libsymbolite.so" ] || fail "no libsymbolite.so beside libsymbolite.a"
[ -f "$libdir/pkgconfig/symbolite.pc" ] || fail "no symbolite.pc"
[ -f "$libdir/cmake/symbolite/symboliteConfig.cmake" ] || fail "no CMake package"
for header in mobile/model_info.h runtime/interpreter.h debuginfo/symbolicator.h version.h \
              ops/registry/ivalue.h; do
  [ -f "$prefix/include/symbolite/$header" ] || fail "public header $header not installed"
done
# The umbrella and every public header it names compile on their own from the prefix (with
# fmt and nlohmann-json, the package's public dependencies): none needs a header that is not
# installed, or one included before it.
umbrella=$prefix/include/symbolite/symbolite.h
[ -f "$umbrella" ] || fail "no symbolite/symbolite.h"
compiles() {
  echo "#include \"$1\"" | c++ -std=c++20 -fsyntax-only -I"$prefix/include" -x c++ - \
    2> "$work/header.err" || fail "$1 does not compile on its own from the prefix:
$(head -n 20 "$work/header.err")"
}
compiles symbolite/symbolite.h
while read -r header; do
  compiles "$header"
done < <(sed -n 's/^#include "\(symbolite\/.*\)"$/\1/p' "$umbrella")
for internal in cli ops/kernels ops/cpu; do
  [ ! -e "$prefix/include/symbolite/$internal" ] || fail "internal headers installed: $internal"
done
"$prefix/bin/symbolite" --version | grep -q "^symbolite [0-9]" || fail "symbolite --version"

model=$source/tests/fixtures/models/nested.ptl
case_dir=$source/tests/fixtures/run/nested/valid_0
# The handle of examples/crash.log: an aten::add three modules deep.
handle=28
expected=$("$prefix/bin/symbolite" symbolicate "$model" "$handle" --json | "$python" -c '
import json, sys
s = json.load(sys.stdin)["results"][0]
print(s["module_hierarchy"]); print(s["traceback"])')

# One consumer: its symbolication equals the CLI's, its output PyTorch's.
check_consumer() {
  local name=$1 binary=$2 out=$work/$1.npy
  "$binary" "$model" "$handle" forward "$out" "$case_dir/input_0.npy" "$case_dir/input_1.npy" \
    > "$work/$name.txt" || fail "$name failed: $(cat "$work/$name.txt")"
  got=$(sed -n '2,$p' "$work/$name.txt" | sed '$d')
  [ "$got" = "$expected" ] || fail "$name symbolicates handle $handle differently from the CLI:
$got
--- CLI:
$expected"
  "$python" -c '
import sys, numpy as np
got, want = np.load(sys.argv[1]), np.load(sys.argv[2])
sys.exit(0 if got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-6) else 1)' \
    "$out" "$case_dir/output_0.npy" || fail "$name: output differs from PyTorch's"
  echo "package.install: $name ok"
}

for kind in shared static; do
  static=OFF; [ "$kind" = static ] && static=ON
  cmake -S "$source/examples/consumer" -B "$work/consumer-$kind" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCONSUMER_STATIC=$static -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$work/consumer-$kind" >/dev/null
  check_consumer "find_package-$kind" "$work/consumer-$kind/consumer"
done

# pkg-config, as a Makefile would use it.
flags=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs symbolite)
# shellcheck disable=SC2086
c++ -std=c++20 -O1 "$source/examples/consumer/main.cpp" -o "$work/consumer-pc" $flags \
  -Wl,-rpath,"$libdir"
check_consumer "pkg-config" "$work/consumer-pc"

# The Python package, from the prefix alone.
site=$(find "$prefix" -type d -name dist-packages | head -n 1)
[ -n "$site" ] && [ -d "$site/symbolite" ] || fail "no Python package under $prefix"
got=$(cd "$work" && PYTHONPATH=$site "$python" -c '
import sys, symbolite
s = symbolite.symbolicate(sys.argv[1], [int(sys.argv[2])])[0]
print(s.module_hierarchy); print(s.traceback)' "$model" "$handle") || fail "import symbolite from $site"
[ "$got" = "$expected" ] || fail "the installed Python package symbolicates differently from the CLI"
echo "package.install: python ok"
