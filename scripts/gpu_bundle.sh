#!/usr/bin/env bash
# Builds what a GPU session runs, here (the device machine has nvcc but not
# hcube's libraries: FFTW, fmt, GoogleTest, CLI11), and packs it for the
# device call: the hcube program, hcube_tests, the CLI test programs and the
# FFT example, with the shared libraries they load that are not glibc's, the
# GPU driver's or the CUDA toolkit's (the device image has those), and the
# commit they were built from. Then, in ONE device call:
#
#   run(command="scripts/gpu_check.sh --bundle gpu-bundle.tar.xz", carry=["gpu-bundle.tar.xz"])
#
# usage: scripts/gpu_bundle.sh [build dir (default build-gpu)] [bundle (default gpu-bundle.tar.xz)]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-gpu}
bundle=${2:-gpu-bundle.tar.xz}
command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || { echo "gpu_bundle.sh: no nvcc: the CUDA backend cannot be built here" >&2; exit 2; }
# MPI off: the device machine has no MPI library to load, and nothing there runs mpirun.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DHCUBE_WARNINGS_AS_ERRORS=ON -DHCUBE_ENABLE_MPI=OFF \
  -DHCUBE_ENABLE_CUDA=ON -DHCUBE_BUILD_TESTS=ON >/dev/null
cli_tests=(hcube_cli_tests hcube_cli_aapc_tests hcube_cli_multi_aapc_tests hcube_cli_fft_tests hcube_cli_permute_tests
  hcube_cli_bench_tests hcube_cli_reliability_tests hcube_cli_redistribute_tests hcube_cli_scatter_tests)
cmake --build "$build" -j"$(nproc)" --target hcube hcube_tests hcube_example_fft "${cli_tests[@]}"
"$build/bin/hcube" info --json | tr -d ' \n' | grep -qF '"backends_built":["cpu","cuda"]' || { echo "gpu_bundle.sh: $build has no CUDA backend" >&2; exit 1; }

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/hcube-gpu
mkdir -p "$root/bin" "$root/tests" "$root/lib"
cp "$build/bin/hcube" "$build/bin/hcube_example_fft" "$root/bin/"
cp "$build/tests/hcube_tests" "$root/tests/"
for t in "${cli_tests[@]}"; do cp "$build/tests/$t" "$root/tests/"; done
strip --strip-unneeded "$root"/bin/* "$root"/tests/* 2>/dev/null || true
# The shared libraries to carry: all but the C library's, the dynamic
# loader's, the GPU driver's and the CUDA toolkit's.
for f in "$root"/bin/* "$root"/tests/*; do
  ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
  case $(basename "$lib") in
    libc.so* | libm.so* | libpthread.so* | libdl.so* | librt.so* | ld-linux* | libcuda.so* | libcufft* | libcudart*) ;;
    *) cp -L "$lib" "$root/lib/" ;;
  esac
done
git rev-parse --short=12 HEAD 2>/dev/null >"$root/COMMIT" || echo unknown >"$root/COMMIT"
git diff --quiet HEAD 2>/dev/null || sed -i 's/$/-dirty/' "$root/COMMIT"
tar -C "$stage" -cJf "$bundle" hcube-gpu
echo "gpu_bundle.sh: $bundle ($(du -h "$bundle" | cut -f1)), commit $(cat "$root/COMMIT"), libraries: $(ls "$root/lib" | tr '\n' ' ')"
echo "carry it to one device call: scripts/gpu_check.sh --bundle $bundle"
