#!/usr/bin/env bash
# Fuzzes hcube's parsers with libFuzzer (tests/fuzz): the .npy reader (on a
# file, and on an endless stream whose first bytes claim any length), the
# schedule reader and the --cycle, --perm and --message parsers. Configures a
# build of its own (build-fuzz: clang, no CUDA, AddressSanitizer and
# UndefinedBehaviorSanitizer, libFuzzer coverage), builds only the fuzz
# targets, and runs each for the given time on a copy of its seed corpus
# (tests/fuzz/corpus/<target>; new inputs it finds stay in the copy), with
# the format's words from tests/fuzz/dict/<target>.dict.
# Exits non-zero on a finding: a crash, a sanitizer report, an exception other
# than hcube::Error, a multi-line error message, a broken invariant, a hang
# past 10 s or 2 GB of memory; libFuzzer's log and the input that did it are
# under $FUZZ_OUT (default build-fuzz/runs/<target>/). Without clang and
# libFuzzer it skips, saying so, and exits 0.
#
# usage: scripts/fuzz.sh [seconds per target (default 60)] [target ...]
#   targets: npy npy_stream schedule cycle perm message (default all)
#   replay a saved crash: build-fuzz/fuzz/hcube_fuzz_<target> <crash file>, or with
#   the ordinary build's build/tests/fuzz/hcube_fuzz_<target>_replay <crash file>
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(npy npy_stream schedule cycle perm message)
case $seconds in '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [seconds per target] [target ...]" >&2; exit 2 ;; esac

cc=${FUZZ_CC:-clang} cxx=${FUZZ_CXX:-clang++}
if ! command -v "$cxx" >/dev/null || ! command -v "$cc" >/dev/null; then
  echo "fuzz: SKIPPED: $cxx not found (apt-get install clang libclang-rt-dev libomp-dev; scripts/install-deps.sh installs them as optional)" >&2
  exit 0
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '#include <omp.h>\n#include <cstddef>\n#include <cstdint>\nextern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return omp_get_max_threads() < 0; }\n' >"$probe/p.cpp"
if ! "$cxx" -fopenmp -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" >"$probe/log" 2>&1; then
  echo "fuzz: SKIPPED: $cxx cannot link -fopenmp -fsanitize=fuzzer,address,undefined (install libclang-rt-dev libomp-dev):" >&2
  head -5 "$probe/log" >&2
  exit 0
fi

build=${FUZZ_BUILD:-build-fuzz}
out=${FUZZ_OUT:-$build/runs}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# Warnings are not errors here: clang warns where gcc does not, and the gcc
# builds (scripts/test.sh, .ci/run) are the warnings gate.
CC=$cc CXX=$cxx cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHCUBE_FUZZ=ON \
  -DHCUBE_SANITIZE=address,undefined -DHCUBE_ENABLE_CUDA=OFF -DHCUBE_WARNINGS_AS_ERRORS=OFF \
  -DHCUBE_BUILD_TESTS=OFF -DHCUBE_BUILD_BENCH=OFF "${launcher[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)" --target hcube_fuzzers

failed=()
for t in "${targets[@]}"; do
  [ -d "tests/fuzz/corpus/$t" ] || { echo "fuzz: unknown target '$t'" >&2; exit 2; }
  dir=$out/$t
  rm -rf "$dir"
  mkdir -p "$dir/corpus"
  cp "tests/fuzz/corpus/$t"/* "$dir/corpus/"
  dict=()  # the format's words (tests/fuzz/dict/<target>.dict) spliced in by libFuzzer's mutations
  [ -f "tests/fuzz/dict/$t.dict" ] && dict=(-dict="tests/fuzz/dict/$t.dict")
  echo "=== fuzz $t: ${seconds} s ($dir/log) ==="
  # detect_leaks: the parsers must not leak either. One OpenMP thread: the
  # small machines the targets run gain nothing from more, and runs repeat.
  if OMP_NUM_THREADS=1 ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/fuzz/hcube_fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$dir/" "${dict[@]}" "$dir/corpus" >"$dir/log" 2>&1; then
    grep -E '^(Done|stat::number_of_executed_units|stat::new_units_added)' "$dir/log" | tr '\n' ' '
    echo
  else
    echo "fuzz: FINDING in $t:" >&2
    grep -E -A25 'ERROR|finding|terminate|deadly signal|SUMMARY' "$dir/log" | head -60 >&2 || tail -40 "$dir/log" >&2
    ls "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-* 2>/dev/null >&2 || true
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]} (inputs and logs under $out/)" >&2
  exit 1
fi
echo "fuzz: no findings in ${targets[*]} (${seconds} s each)"
