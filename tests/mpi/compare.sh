#!/usr/bin/env bash
# The MPI tests' check (docs/distributed.md): one hcube command run as one
# process and under mpirun on NP ranks must write the same .npy bit for bit,
# and the ranks' JSON must say verified on NP ranks and hold the same fields as
# one process's, plus the ranks' own.
#
#   compare.sh MPIEXEC HCUBE NP [--before "ARGS"]... ARGS...
#
# --before runs `hcube ARGS` first (a schedule file, an input array); @DIR@ in
# any ARGS is the test's scratch directory.
set -euo pipefail
mpiexec=$1 hcube=$2 np=$3
shift 3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
source "$(dirname "$0")/mpirun_flags.sh"

while [ "${1:-}" = "--before" ]; do
  read -r -a before <<<"${2//@DIR@/$dir}"
  "$hcube" "${before[@]}" >/dev/null
  shift 2
done
args=()
for a in "$@"; do args+=("${a//@DIR@/$dir}"); done

"$hcube" "${args[@]}" --json -o "$dir/single.npy" >"$dir/single.json"
"$mpiexec" "${flags[@]}" -np "$np" "$hcube" "${args[@]}" --json -o "$dir/ranks.npy" >"$dir/ranks.json"
grep -q '"verified": true' "$dir/ranks.json" || { echo "not verified on $np ranks:"; cat "$dir/ranks.json"; exit 1; }
grep -q "\"ranks\": $np," "$dir/ranks.json" || { echo "no \"ranks\": $np in the JSON:"; cat "$dir/ranks.json"; exit 1; }
[ "$(grep -c '"command"' "$dir/ranks.json")" -eq 1 ] || { echo "more than one rank printed the JSON"; exit 1; }
cmp "$dir/single.npy" "$dir/ranks.npy" || { echo "hcube ${args[*]}: $np ranks wrote another array"; exit 1; }
# The ranks' JSON has every field one process's has, and beside them only the ranks' own.
python3 - "$dir/single.json" "$dir/ranks.json" <<'PY' || exit 1
import json, sys
one, ranks = (set(json.load(open(p))) for p in sys.argv[1:3])
own = {"ranks", "rank_dims", "rank_transport", "rank_traffic", "bytes_between_ranks", "messages_between_ranks"}
if one - ranks or ranks - one - own:
    sys.exit(f"JSON fields differ under mpirun: missing {sorted(one - ranks)}, extra {sorted(ranks - one - own)}")
PY
echo "hcube ${args[*]}: the same array on $np ranks as on one process"
