#!/usr/bin/env bash
# The messages between ranks of a schedule's run are the model's (docs/distributed.md):
#
#   messages.sh MPIEXEC HCUBE NP SCHEDULE_ARGS...
#
# `hcube schedule SCHEDULE_ARGS` writes the schedule; `hcube run` of it on NP =
# 2^r ranks must send, in every cycle, exactly one message from each rank to
# each partner across a rank dimension the cycle uses (so never two to one
# partner in a cycle), each holding the 2^(n-r) words of every exchange on
# that dimension: the words that cross, once each.
set -euo pipefail
mpiexec=$1 hcube=$2 np=$3
shift 3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
source "$(dirname "$0")/mpirun_flags.sh"
"$hcube" schedule "$@" -o "$dir/s.json" >/dev/null
"$mpiexec" "${flags[@]}" -np "$np" "$hcube" run --schedule "$dir/s.json" --type uint64 --json >"$dir/run.json"
python3 - "$np" "$dir/s.json" "$dir/run.json" <<'PY'
import json, math, sys
np_, s, j = int(sys.argv[1]), json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
r, n = int(math.log2(np_)), s["n"]
low = n - r  # the first rank dimension
dims = [len({e["dim"] for e in c if e["dim"] >= low}) for c in s["cycles"]]
crossing = [sum(1 for e in c if e["dim"] >= low) for c in s["cycles"]]
want_messages = sum(dims)  # each rank's, one per partner per cycle
want_bytes = sum(crossing) * (1 << low) * 8
def need(cond, what):
    if not cond:
        sys.exit(f"{np_} ranks, {len(s['cycles'])} cycles: {what}")
need(j["verified"] is True and j["ranks"] == np_, "not verified on these ranks")
for k, t in enumerate(j["rank_traffic"]):
    need(t["messages_sent"] == want_messages,
         f"rank {k} sent {t['messages_sent']} messages, the model {want_messages} (one a partner a cycle)")
    need(t["bytes_sent"] == want_bytes and t["bytes_received"] == want_bytes,
         f"rank {k} sent {t['bytes_sent']} and received {t['bytes_received']} bytes, the model {want_bytes}")
need(j["messages_between_ranks"] == np_ * want_messages, "messages_between_ranks is not the ranks' sum")
print(f"{np_} ranks: {want_messages} messages a rank over {len(s['cycles'])} cycles "
      f"(at most {max(dims)} a cycle, one a partner), {want_bytes} bytes each, as the model")
PY
