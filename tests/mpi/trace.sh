#!/usr/bin/env bash
# --trace under mpirun (docs/distributed.md): one hcube command run as one
# process and on NP ranks must print the same trace, as JSON (the "trace"
# field, every state gathered on rank 0) and, unless --json-only, as the
# printed tables (everything before the run's summary line).
#
#   trace.sh MPIEXEC HCUBE NP [--json-only] ARGS...
set -euo pipefail
mpiexec=$1 hcube=$2 np=$3
shift 3
prose=1
if [ "${1:-}" = "--json-only" ]; then prose=0; shift; fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
source "$(dirname "$0")/mpirun_flags.sh"

"$hcube" "$@" --trace --json >"$dir/single.json"
"$mpiexec" "${flags[@]}" -np "$np" "$hcube" "$@" --trace --json >"$dir/ranks.json"
python3 - "$dir/single.json" "$dir/ranks.json" "$np" <<'EOF'
import json, sys
one, ranks = (json.load(open(p)) for p in sys.argv[1:3])
np = int(sys.argv[3])
if ranks.get("ranks") != np or ranks.get("verified") is not True:
    sys.exit(f"not a verified run on {np} ranks: {ranks}")
if not one["trace"]:
    sys.exit("one process recorded no trace")
if ranks["trace"] != one["trace"]:
    sys.exit(f"the traces differ: {len(one['trace'])} steps on one process, {len(ranks['trace'])} on {np} ranks")
print(f"{len(one['trace'])} traced steps equal on {np} ranks")
EOF
[ "$prose" = 1 ] || exit 0

# The printed trace: the tables before the summary line ("... on cpu backend
# (...)" on one process, "... on NP ranks of cpu backend" across ranks), with
# one process's "backend auto chose" line left out.
tables() { sed -E '/^backend /d; / on ([0-9]+ ranks of )?[a-z]+ backend \(/,$d' "$1"; }
"$hcube" "$@" --trace >"$dir/single.txt"
"$mpiexec" "${flags[@]}" -np "$np" "$hcube" "$@" --trace >"$dir/ranks.txt"
tables "$dir/single.txt" >"$dir/single.tables"
tables "$dir/ranks.txt" >"$dir/ranks.tables"
[ -s "$dir/single.tables" ] || { echo "one process printed no trace:"; cat "$dir/single.txt"; exit 1; }
diff "$dir/single.tables" "$dir/ranks.tables" || { echo "hcube $*: the printed traces differ on $np ranks"; exit 1; }
echo "hcube $* --trace: the same $(wc -l <"$dir/single.tables") lines on $np ranks"
