#!/usr/bin/env bash
# The house rules the layout keeps (docs/architecture.md): the command line
# only parses, plans, executes and prints (at most 3000 lines, no MPI calls,
# no sessions or jobs of its own); no HTML inside C++ sources (the teaching
# page is emulator/app/page/); no command-line flag in the library's
# messages; at most 10 test files flat in tests/.
set -euo pipefail
root="${1:?usage: check_layout.sh SOURCE_DIR}"
cd "$root"
fail=0
lines=$(cat emulator/cli/*.cpp emulator/cli/*.hpp $(find emulator/cli/include -type f) | wc -l)
echo "emulator/cli: $lines lines"
[ "$lines" -le 3000 ] || { echo "emulator/cli has $lines lines: allowed at most 3000 (the engine belongs in emulator/app)"; fail=1; }
if grep -rnE '\bMPI_[A-Z][a-z_]*\s*\(|<mpi\.h>' emulator/cli; then
  echo "emulator/cli calls MPI: the runs across ranks belong in emulator/mpi"; fail=1
fi
if grep -rnE '\bstruct (Session|Job)\b|\bJob\{|\bhcube::Session\b' emulator/cli; then
  echo "emulator/cli makes sessions or jobs of its own: plans make their jobs, emulator/app its sessions"; fail=1
fi
if grep -rnE '<(html|script|div|style)[ >]' --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.cuh' \
     emulator host kernels python/src; then
  echo "HTML inside a C++ source: the page is emulator/app/page/"; fail=1
fi
# The library's messages name its own parameters (docs/api.md); the command
# line (emulator/app/src/cli_words.cpp) and Python turn them into flags and keywords.
# Allowed: file:line pattern, each with why.
cli_flag_allowed=(
  # the schedule table's own text, which hcube schedule prints as it is: no message
  'host/src/schedule_table.cpp:[0-9]+: .*\(--all shows them\)'
)
flags=$(grep -rnE '"([^"\\]*[ (])?--?[a-zA-Z]([^A-Za-z0-9_]|$)|"([^"\\]*[ (])?--[a-zA-Z]' \
          --include='*.cpp' --include='*.hpp' --include='*.cu' --include='*.cuh' --include='*.h' \
          host emulator/src emulator/include kernels | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true)
for allowed in "${cli_flag_allowed[@]}"; do flags=$(grep -vE "^$allowed" <<<"$flags" || true); done
if [ -n "$flags" ]; then
  echo "$flags"
  echo "a library string names a command-line flag: name the API's parameter (Struct::field), mapped in cli_words.cpp"; fail=1
fi
flat=$(find tests -maxdepth 1 -type f \( -name 'test_*' -o -name '*_test.*' \) | wc -l)
echo "tests/: $flat test files at the top"
[ "$flat" -le 10 ] || { echo "tests/ has $flat test files at the top: allowed at most 10 (the folders mirror the code)"; fail=1; }
exit "$fail"
