#!/usr/bin/env bash
# Packs, here, what a GPU session runs on a bare device machine (which has the
# GPU driver, the CUDA toolkit, a C++ compiler's runtime and Python 3.12, but
# none of hcube's libraries: FFTW, fmt, Open MPI):
#   bin/     hcube and the FFT example        tests/   hcube_tests and the CLI test programs
#   lib/     the shared libraries they and the Python extension load that the device lacks: all
#            but glibc's, the compiler runtime's (libstdc++, libgcc_s, libgomp), the GPU
#            driver's and the CUDA toolkit's; the programs find them through their RPATH
#            ($ORIGIN/../lib), so nothing else on the device sees them
#   mpi/     the Open MPI runtime hcube's libmpi was built against (mpirun, orted, its MCA and PMIx
#            components, help texts and config), where the build has MPI: the device has none, and
#            scripts/gpu_mpi_aapc.sh runs it relocated there (OPAL_*/PMIX_* install dirs set to mpi/)
#   wheels/  hcube's Python package as a wheel built here for the device's Python, and the
#            wheels of its test requirements (NumPy, pytest, the notebook's), for a venv there
#   COMMIT; CUFFT, the cuFFT library the programs were linked with (found there by that name);
#   WHEEL, the wheel's name; REQUIREMENTS, its test requirements carried (all but mypy);
#   SYSTEM_LIBS, the libraries left to the device
# Then, in ONE device call:
#
#   run(command="scripts/gpu_check.sh --bundle gpu-bundle.tar.xz", carry=["gpu-bundle.tar.xz"])
#
# scripts/gpu_dry_run.sh proves a bundle here, with the build tree moved away (CI runs it).
#
# usage: scripts/gpu_bundle.sh [--build DIR] [--python PY] [--wheel FILE] [--output FILE]
#   --build DIR    a build with the CUDA backend (default build; configured with CUDA on if new)
#   --python PY    the Python the wheel is for (default: a python3.12, the device's, where one is
#                  found here, else python3)
#   --wheel FILE   a wheel of hcube already built for that Python (default: built here)
#   --output FILE  the bundle (default gpu-bundle.tar.xz)
# The older spelling, scripts/gpu_bundle.sh [build dir] [bundle], still works.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
bundle=gpu-bundle.tar.xz
py=""
wheel=""
positional=()
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --python) py=$2; shift 2 ;;
    --wheel) wheel=$2; shift 2 ;;
    --output) bundle=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gpu_bundle.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) positional+=("$1"); shift ;;
  esac
done
[ ${#positional[@]} -ge 1 ] && build=${positional[0]}
[ ${#positional[@]} -ge 2 ] && bundle=${positional[1]}
[ ${#positional[@]} -le 2 ] || { echo "gpu_bundle.sh: at most two positional arguments (build dir, bundle)" >&2; exit 2; }
command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || { echo "gpu_bundle.sh: no nvcc: the CUDA backend cannot be built here" >&2; exit 2; }
command -v patchelf >/dev/null || { echo "gpu_bundle.sh: patchelf is missing (scripts/install-deps.sh installs it)" >&2; exit 2; }

# The device's Python is 3.12 (the device tool's KINDS.md): a wheel for it where such a Python is here.
if [ -z "$py" ]; then
  for c in python3.12 "$HOME"/.pyenv/versions/3.12*/bin/python3.12 python3; do
    if "$c" -c 'import sys' >/dev/null 2>&1; then py=$c; break; fi
  done
fi
"$py" -c 'import sys' >/dev/null 2>&1 || { echo "gpu_bundle.sh: no Python '$py'" >&2; exit 2; }

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DHCUBE_WARNINGS_AS_ERRORS=ON -DHCUBE_ENABLE_CUDA=ON \
    -DHCUBE_BUILD_TESTS=ON >/dev/null
fi
cli_tests=(hcube_cli_tests hcube_cli_aapc_tests hcube_cli_multi_aapc_tests hcube_cli_fft_tests hcube_cli_permute_tests
  hcube_cli_bench_tests hcube_cli_reliability_tests hcube_cli_redistribute_tests hcube_cli_scatter_tests)
cmake --build "$build" -j"$(nproc)" --target hcube hcube_tests hcube_example_fft "${cli_tests[@]}"
"$build/bin/hcube" info --json | tr -d ' \n' | grep -qF '"backends_built":["cpu","cuda"]' || { echo "gpu_bundle.sh: $build has no CUDA backend" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/hcube-gpu
mkdir -p "$root/bin" "$root/tests" "$root/lib" "$root/wheels"

# The Python package: the wheel (with the CUDA backend, as on a machine with a driver) and its test requirements.
if [ -z "$wheel" ]; then
  CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "$py" -m pip wheel -q --no-deps -w "$stage/built" . \
    -Ccmake.define.HCUBE_ENABLE_CUDA=ON -Ccmake.define.HCUBE_WARNINGS_AS_ERRORS=ON -Cbuild-dir="build-wheel/{wheel_tag}"
  wheel=$(ls "$stage"/built/*.whl)
fi
[ -f "$wheel" ] || { echo "gpu_bundle.sh: no wheel $wheel" >&2; exit 2; }
cp "$wheel" "$root/wheels/"
basename "$wheel" >"$root/WHEEL"
# Its requirements, the test extra's included, as the wheel's own metadata names them.
mapfile -t needs < <("$py" - "$wheel" <<'EOF'
import re, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
    for line in z.read(meta).decode().splitlines():
        if line.startswith("Requires-Dist:"):
            req = line.split(":", 1)[1].split(";")[0].strip()
            if req:
                print(req)
EOF
)
# Less mypy (15 MB, the type check: CI's, no GPU's concern), to keep the bundle well under the call's
# 64 MiB; REQUIREMENTS lists what the device's venv installs besides the wheel.
mapfile -t needs < <(printf '%s\n' "${needs[@]}" | grep -Ev '^mypy([^A-Za-z0-9_.-]|$)')
printf '%s\n' "${needs[@]}" >"$root/REQUIREMENTS"
"$py" -m pip download -q --only-binary=:all: -d "$root/wheels" "${needs[@]}"

cp "$build/bin/hcube" "$build/bin/hcube_example_fft" "$root/bin/"
cp "$build/tests/hcube_tests" "$root/tests/"
for t in "${cli_tests[@]}"; do cp "$build/tests/$t" "$root/tests/"; done
strip --strip-unneeded "$root"/bin/* "$root"/tests/* 2>/dev/null || true
unzip -q -o "$root/wheels/$(basename "$wheel")" 'hcube/*.so' -d "$stage/ext"

# What the device has of its own; scripts/gpu_check.sh reads the same list to check what a program loads there.
system='^(libc|libm|libmvec|libpthread|libdl|librt|libutil|libresolv|libstdc\+\+|libgcc_s|libgomp|libcuda|libcudart|libcufft|libnvidia-.*)\.so|^(ld-linux|linux-vdso)'
echo "$system" >"$root/SYSTEM_LIBS"
# hcube._hcube_mpi is left out: the Python tests run no mpirun on the device (the MPI step runs the hcube
# program, below), so its needs are not checked for there.
for f in "$root"/bin/* "$root"/tests/* "$stage"/ext/hcube/*.so; do
  case $f in */_hcube_mpi.*) continue ;; esac
  ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
  if ! basename "$lib" | grep -Eq "$system"; then cp -L "$lib" "$root/lib/"; fi
done
# The Open MPI runtime for two ranks on the device (scripts/gpu_mpi_aapc.sh), from the installation whose
# libmpi hcube loads: its launcher, its components but those of network stacks a single node does not
# use (UCX, libfabric, verbs, PSM) and of OpenSHMEM, whose libraries would only weigh.
libmpi=$(ldd "$root/bin/hcube" | awk '$1 ~ /^libmpi\.so/ && $3 ~ /^\// {print $3}')
if [ -n "$libmpi" ]; then
  ompi_info=$(command -v ompi_info) || { echo "gpu_bundle.sh: hcube links libmpi but ompi_info is missing" >&2; exit 1; }
  ompi_dir() { "$ompi_info" --path "$1" --parsable | sed -n "s/^path:$1://p"; }
  mpi=$root/mpi
  mkdir -p "$mpi/bin" "$mpi/lib/openmpi" "$mpi/lib/pmix" "$mpi/share" "$mpi/etc/openmpi"
  cp -L "$(ompi_dir bindir)/orterun" "$(ompi_dir bindir)/orted" "$mpi/bin/"
  ln -s orterun "$mpi/bin/mpirun"
  skip_deps='^lib(uc[mpst]|psm|infinipath|ibverbs|rdmacm|fabric|efa|nl-|oshmem|mca_common_(ucx|ofi|verbs))'
  for c in "$(ompi_dir pkglibdir)"/mca_*.so; do
    ldd "$c" | awk '$3 ~ /^\// {print $1}' | grep -Eq "$skip_deps" || cp "$c" "$mpi/lib/openmpi/"
  done
  cp -rL "$(ompi_dir pkgdatadir)" "$mpi/share/openmpi"
  cp -L "$(ompi_dir sysconfdir)"/openmpi-mca-params.conf "$(ompi_dir sysconfdir)"/openmpi-default-hostfile "$mpi/etc/openmpi/"
  # PMIx, external (Debian's): its own components and help texts, from the prefix of the libpmix Open MPI's
  # PMIx component loads (not its parameters: Debian's only one names the system's component directory).
  libpmix=$(ldd "$mpi"/lib/openmpi/mca_pmix_*.so | awk '$1 ~ /^libpmix\.so/ && $3 ~ /^\// {print $3}' | head -1)
  if [ -n "$libpmix" ]; then
    pmix=$(dirname "$(dirname "$(realpath "$libpmix")")")
    cp "$pmix"/lib/pmix/*.so "$mpi/lib/pmix/" 2>/dev/null || true
    [ -d "$pmix/share/pmix" ] && cp -rL "$pmix/share/pmix" "$mpi/share/pmix"
  fi
  for f in "$mpi"/bin/orterun "$mpi"/bin/orted "$mpi"/lib/*/*.so; do
    ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
  done | sort -u | while read -r lib; do
    if ! basename "$lib" | grep -Eq "$system"; then cp -L "$lib" "$root/lib/"; fi
  done
  strip --strip-unneeded "$mpi"/bin/orte* "$mpi"/lib/*/*.so 2>/dev/null || true
  for f in "$mpi"/bin/orterun "$mpi"/bin/orted; do patchelf --force-rpath --set-rpath '$ORIGIN/../../lib' "$f"; done
  for f in "$mpi"/lib/*/*.so; do patchelf --force-rpath --set-rpath '$ORIGIN/../../../lib' "$f"; done
fi
# The programs and the carried libraries look in lib/ first (DT_RPATH also serves the libraries' own needs).
for f in "$root"/bin/* "$root"/tests/*; do patchelf --force-rpath --set-rpath '$ORIGIN/../lib' "$f"; done
for f in "$root"/lib/*; do patchelf --force-rpath --set-rpath '$ORIGIN' "$f"; done
readelf -d "$root/bin/hcube" | sed -n 's/.*Shared library: \[\(libcufft\.so\.[0-9]*\)\].*/\1/p' >"$root/CUFFT"

git rev-parse --short=12 HEAD 2>/dev/null >"$root/COMMIT" || echo unknown >"$root/COMMIT"
git diff --quiet HEAD 2>/dev/null || sed -i 's/$/-dirty/' "$root/COMMIT"
XZ_OPT=${XZ_OPT:--T0} tar -C "$stage" -cJf "$bundle" hcube-gpu
echo "gpu_bundle.sh: $bundle ($(du -h "$bundle" | cut -f1)), commit $(cat "$root/COMMIT"), for $("$py" --version)"
# The device call carries at most 64 MiB, the working tree included.
[ "$(stat -c %s "$bundle")" -le $((56 << 20)) ] || echo "gpu_bundle.sh: warning: over 56 MiB, near the device call's 64 MiB with the tree" >&2
echo "  libraries: $(ls "$root/lib" | tr '\n' ' ')"
echo "  wheels: $(ls "$root/wheels" | tr '\n' ' ')"
echo "carry it to one device call: scripts/gpu_check.sh --bundle $bundle"
