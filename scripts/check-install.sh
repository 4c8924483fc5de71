#!/usr/bin/env bash
# Checks hcube as a library the way another project uses it: installs a built
# hcube into a fresh prefix, then configures, builds and runs tests/consumer
# against it (find_package(hcube), CMAKE_PREFIX_PATH=<prefix>); with --subdir,
# also builds tests/consumer with hcube added as a subdirectory (which builds
# the libraries again, from this source tree).
#
#   scripts/check-install.sh [--subdir] [--work DIR] [--config CFG] [BUILD_DIR] [-- CMAKE_ARGS...]
#
# BUILD_DIR: a configured and built hcube (default: build). --work: where the
# prefix and the consumer's builds go (default: a temporary directory, removed
# afterwards). CMAKE_ARGS go to the consumer's configure, e.g.
# -DCMAKE_CXX_COMPILER_LAUNCHER=ccache, -DHCUBE_ENABLE_CUDA=OFF (subdirectory).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

subdir=0
work=""
config=""
build="$root/build"
while [ $# -gt 0 ]; do
  case "$1" in
    --subdir) subdir=1 ;;
    --work) work="$2"; shift ;;
    --config) config="$2"; shift ;;
    --) shift; break ;;
    -*) echo "check-install: unknown option $1" >&2; exit 2 ;;
    *) build="$1" ;;
  esac
  shift
done
cmake_args=("$@")
build="$(cd "$build" && pwd)"

if [ -z "$work" ]; then
  work="$(mktemp -d)"
  trap 'rm -rf "$work"' EXIT
else
  rm -rf "$work"
  mkdir -p "$work"
fi
prefix="$work/prefix"
jobs="$(nproc 2>/dev/null || echo 2)"

echo "=== check-install: cmake --install $build --prefix $prefix ==="
cmake --install "$build" --prefix "$prefix" ${config:+--config "$config"} >"$work/install.log"

# The installed package names neither the source nor the build tree, nor the
# build's own link-only targets.
cmakedir="$(dirname "$(find "$prefix" -name hcubeConfig.cmake -print -quit)")"
[ -f "$cmakedir/hcubeConfig.cmake" ] && [ -f "$cmakedir/hcubeConfigVersion.cmake" ] && [ -f "$cmakedir/hcubeTargets.cmake" ] \
  || { echo "check-install: hcubeConfig.cmake, hcubeConfigVersion.cmake or hcubeTargets.cmake not installed" >&2; exit 1; }
if grep -n -e "$root/" -e "$build/" -e hcube_flags -e hcube_fftw3 "$cmakedir"/hcubeTargets*.cmake; then
  echo "check-install: the installed targets name the source or build tree or a build-only target (above)" >&2
  exit 1
fi
[ -f "$prefix/include/hcube/hcube.hpp" ] && [ -f "$prefix/include/hcube/config.hpp" ] \
  || { echo "check-install: <hcube/hcube.hpp> or <hcube/config.hpp> not installed" >&2; exit 1; }

# The public header is the API alone: no JSON or formatting library comes with it, and it parses
# in under a second of CPU time (the least of three tries).
echo '#include <hcube/hcube.hpp>' >"$work/public_header.cpp"
cxx="${CXX:-c++}"
if "$cxx" -std=c++17 -E -I"$prefix/include" "$work/public_header.cpp" | grep -q -E "nlohmann|fmt::|namespace fmt"; then
  echo "check-install: <hcube/hcube.hpp> brings in nlohmann_json or fmt" >&2
  exit 1
fi
# The compiler's CPU time (user + system), not the wall clock: on a machine
# busy with other builds the wall clock measures the queue, not the header.
best=""
for _ in 1 2 3; do
  cpu=$( { TIMEFORMAT='%3U %3S'; time "$cxx" -std=c++17 -fsyntax-only -I"$prefix/include" "$work/public_header.cpp" 1>&2; } 2>&1 | tail -1)
  t=$(awk '{ printf "%d", ($1 + $2) * 1000 }' <<<"$cpu")
  [ -z "$best" ] || [ "$t" -lt "$best" ] && best=$t
done
echo "check-install: <hcube/hcube.hpp> parses in $best ms"
[ "$best" -lt 1000 ] || { echo "check-install: <hcube/hcube.hpp> took $best ms to parse: allowed under 1000" >&2; exit 1; }

run_consumer() {  # name, extra configure arguments...
  local name="$1"; shift
  echo "=== check-install: tests/consumer ($name) ==="
  cmake -S "$root/tests/consumer" -B "$work/$name" "$@" "${cmake_args[@]}" >"$work/$name.configure.log" 2>&1 \
    || { cat "$work/$name.configure.log" >&2; echo "check-install: consumer ($name) configure failed" >&2; exit 1; }
  grep "hcube_consumer:" "$work/$name.configure.log" || true
  cmake --build "$work/$name" -j"$jobs" >"$work/$name.build.log" 2>&1 \
    || { tail -n 60 "$work/$name.build.log" >&2; echo "check-install: consumer ($name) build failed" >&2; exit 1; }
  "$work/$name/hcube_consumer" || { echo "check-install: consumer ($name) failed" >&2; exit 1; }
}

# find_package must find the installed package, not another hcube.
run_consumer find_package -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
found="$(sed -n 's/^hcube_DIR:PATH=//p' "$work/find_package/CMakeCache.txt")"
if [ "$(cd "$found" && pwd)" != "$(cd "$cmakedir" && pwd)" ]; then
  echo "check-install: the consumer found hcube in $found, not in $cmakedir" >&2
  exit 1
fi

# Libraries a program links by name: libhcube.so and libhcube.a, found through hcube.pc.
libdir="$(dirname "$(find "$prefix" -name hcube.pc -print -quit)")/.."
for f in "$libdir/pkgconfig/hcube.pc" "$libdir/libhcube.a"; do
  [ -f "$f" ] || { echo "check-install: $f not installed" >&2; exit 1; }
done
ls "$libdir"/libhcube.so.* >/dev/null 2>&1 || { echo "check-install: libhcube.so not installed" >&2; exit 1; }
if command -v pkg-config >/dev/null; then
  echo "=== check-install: tests/consumer through pkg-config, on libhcube.so ==="
  read -r -a pc < <(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs hcube)
  # The consumer's compiler and flags as its CMake builds get them (a sanitizer build's -fsanitize).
  cc="${CXX:-c++}"
  extra=()
  for a in "${cmake_args[@]}"; do
    case $a in
      -DCMAKE_CXX_COMPILER=*) cc=${a#*=} ;;
      -DCMAKE_CXX_FLAGS=* | -DCMAKE_EXE_LINKER_FLAGS=*) read -r -a f <<<"${a#*=}"; extra+=("${f[@]}") ;;
    esac
  done
  "$cc" -std=c++17 -O1 "$root/tests/consumer/main.cpp" "${pc[@]}" "${extra[@]}" -o "$work/pkg_config_consumer" \
    >"$work/pkg_config.log" 2>&1 || { cat "$work/pkg_config.log" >&2; echo "check-install: the pkg-config build failed" >&2; exit 1; }
  # The whole list read first: grep -q quitting early could end ldd by SIGPIPE, which pipefail reports.
  libs=$(ldd "$work/pkg_config_consumer")
  grep -q "libhcube.so" <<<"$libs" || { echo "check-install: the pkg-config build did not link libhcube.so" >&2; exit 1; }
  LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$work/pkg_config_consumer" \
    || { echo "check-install: the pkg-config consumer failed" >&2; exit 1; }
fi
# hcube::mpi, where the build has the distributed machine: its headers and library, linked by the consumer's MPI program.
if grep -q "set(hcube_HAVE_MPI 1)" "$cmakedir/hcubeConfig.cmake"; then
  [ -f "$prefix/include/hcube/mpi/distributed_machine.hpp" ] || { echo "check-install: hcube::mpi's headers not installed" >&2; exit 1; }
  [ -x "$work/find_package/hcube_consumer_mpi" ] || { echo "check-install: the consumer did not build against hcube::mpi" >&2; exit 1; }
  if command -v mpiexec >/dev/null; then
    flags=(--oversubscribe)
    [ "$(id -u)" -eq 0 ] && flags+=(--allow-run-as-root)
    # Open MPI's allocations outlive MPI_Finalize: a sanitizer build checks the ranks' memory errors, not leaks.
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" mpiexec "${flags[@]}" -x ASAN_OPTIONS -np 2 \
      "$work/find_package/hcube_consumer_mpi" || { echo "check-install: the MPI consumer failed" >&2; exit 1; }
  fi
fi

if [ "$subdir" = 1 ]; then
  run_consumer add_subdirectory -DHCUBE_CONSUMER_SUBDIR="$root"
fi
echo "check-install: ok"
