#!/usr/bin/env bash
# The messages between ranks of a schedule's run are the model's (docs/distributed.md):
#
#   messages.sh MPIEXEC HCUBE NP MODE SCHEDULE_ARGS...
#
# `hcube schedule SCHEDULE_ARGS` writes the schedule; `hcube run` of it on NP =
# 2^r ranks must send exactly the words that cross a rank dimension, once
# each (the 2^(n-r) words of every exchange on that dimension), and
#
# - MODE cycle (HCUBE_MPI_CYCLE_MESSAGES=1): in every cycle exactly one
#   message from each rank to each partner across a rank dimension the cycle uses;
# - MODE round (the default): one message a partner per round and per
#   quarter of the share, the rounds worked out here from the schedule by the
#   rule docs/distributed.md states (an exchange waits for every earlier one
#   that touches its addresses, and for the landing of a crossing one), so
#   never more than one a partner a cycle; for Algorithm 4 and Edelman's
#   schedule r + 1 rounds.
set -euo pipefail
mpiexec=$1 hcube=$2 np=$3 mode=$4
shift 4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
source "$(dirname "$0")/mpirun_flags.sh"
"$hcube" schedule "$@" -o "$dir/s.json" >/dev/null
per_cycle=0
[ "$mode" = cycle ] && per_cycle=1
HCUBE_MPI_CYCLE_MESSAGES=$per_cycle "$mpiexec" "${flags[@]}" -x HCUBE_MPI_CYCLE_MESSAGES -np "$np" \
  "$hcube" run --schedule "$dir/s.json" --type uint64 --json >"$dir/run.json"
python3 - "$np" "$mode" "$dir/s.json" "$dir/run.json" <<'PY'
import json, math, sys
np_, mode, s, j = int(sys.argv[1]), sys.argv[2], json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
r, n, m = int(math.log2(np_)), s["n"], s["m"]
low = n - r  # the first rank dimension
cycles = s["cycles"]
dims = [len({e["dim"] for e in c if e["dim"] >= low}) for c in cycles]
crossing = [sum(1 for e in c if e["dim"] >= low) for c in cycles]
want_bytes = sum(crossing) * (1 << low) * 8
def need(cond, what):
    if not cond:
        sys.exit(f"{np_} ranks, {len(cycles)} cycles, {mode}: {what}")
if mode == "cycle":
    want_messages = sum(dims)  # each rank's, one per partner per cycle
else:
    # Each exchange's round: the latest round an address it touches was left
    # in (a crossing exchange leaves its addresses for the round after its
    # own); an exchange with an offset map touches every address.
    ready, floor, latest, rounds = {}, 0, 0, {}
    for c in cycles:
        for e in c:
            a, p, mapped = e["addr"], e.get("peer_addr", e["addr"]), e.get("map", 0) != 0
            k = latest if mapped else max(floor, ready.get(a, 0), ready.get(p, 0))
            after = k + (1 if e["dim"] >= low else 0)
            if mapped:
                floor, ready = after, {}
            else:
                ready[a] = ready[p] = after
            latest = max(latest, after)
            if e["dim"] >= low:
                rounds.setdefault(k, []).append(e["dim"])
    # A message holds at most a quarter of the share's words, at least one exchange's.
    most = max(1 << low, (1 << (low + m)) // 4)
    want_messages = 0
    for k in sorted(rounds):
        ex = rounds[k]
        for first in range(0, len(ex), max(1, most >> low)):
            want_messages += len(set(ex[first:first + max(1, most >> low)]))
    need(want_messages <= sum(dims), f"the model's {want_messages} messages exceed one a partner a cycle")
    if s["algorithm"] in ("4", "edelman"):
        need(len(rounds) == r, f"{len(rounds)} rounds with crossing words, where {r} were expected")
need(j["verified"] is True and j["ranks"] == np_, "not verified on these ranks")
for k, t in enumerate(j["rank_traffic"]):
    need(t["messages_sent"] == want_messages,
         f"rank {k} sent {t['messages_sent']} messages, the model {want_messages}")
    need(t["bytes_sent"] == want_bytes and t["bytes_received"] == want_bytes,
         f"rank {k} sent {t['bytes_sent']} and received {t['bytes_received']} bytes, the model {want_bytes}")
need(j["messages_between_ranks"] == np_ * want_messages, "messages_between_ranks is not the ranks' sum")
print(f"{np_} ranks, {mode}: {want_messages} messages a rank over {len(cycles)} cycles "
      f"(one a partner a cycle would be {sum(dims)}), {want_bytes} bytes each, as the model")
PY
