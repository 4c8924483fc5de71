#!/usr/bin/env python3
"""Compares `hcube aapc --json` run as one process and as MPI ranks (scripts/gpu_mpi_aapc.sh).

usage: gpu_mpi_compare.py SINGLE.json RANKS.json

Both must be verified word for word against the reference, the second must really have run on
several ranks (ranks > 1, bytes between them), and every count of the routing must be equal. The
timings, the phases, the launches and the tile size may differ (the ranks pack, send and unpack,
and each holds a slice of the nodes); they are printed, not compared. Exit status 1 on a mismatch.
"""
import json
import sys

# The routing's counts: the same schedule on the same cube moves the same words the same way.
MUST_AGREE = ["d", "n", "m", "K", "type", "algorithm", "launch", "cycles", "exchanges", "element_hops", "bytes",
              "bound", "block_transfers", "min_in_transit", "max_in_transit", "mean_channel_use", "min_channel_use",
              "counters.routing_cycles", "counters.alignments", "counters.element_hops", "counters.bytes_read",
              "counters.bytes_written", "counters.router_contention", "counters.router_steps",
              "counters.channel_use"]
SHOWN = ["backend", "tile_dims", "launches", "seconds", "ranks", "rank_dims", "rank_transport",
         "bytes_between_ranks", "messages_between_ranks"]


def get(obj, dotted):
    for key in dotted.split("."):
        if not isinstance(obj, dict) or key not in obj:
            return None
        obj = obj[key]
    return obj


def main():
    single, ranks = (json.load(open(p)) for p in sys.argv[1:3])
    bad = []
    for name, j in (("single", single), ("ranks", ranks)):
        if j.get("verified") is not True or not j.get("verified_by"):
            bad.append(f"{name}: not verified (verified={j.get('verified')}, verified_by={j.get('verified_by')})")
    if not isinstance(ranks.get("ranks"), int) or ranks["ranks"] < 2 or not ranks.get("bytes_between_ranks"):
        bad.append(f"the MPI run is not one run over several ranks: ranks={ranks.get('ranks')}, "
                   f"bytes_between_ranks={ranks.get('bytes_between_ranks')}")
    if single.get("verified_by") != ranks.get("verified_by"):
        bad.append(f"verified_by: {single.get('verified_by')} vs {ranks.get('verified_by')}")
    for key in MUST_AGREE:
        a, b = get(single, key), get(ranks, key)
        if a is None or a != b:
            bad.append(f"{key}: {json.dumps(a)[:80]} (one process) vs {json.dumps(b)[:80]} (ranks)")
    for key in SHOWN:
        print(f"  {key}: {json.dumps(get(single, key))} (one process), {json.dumps(get(ranks, key))} (ranks)")
    print(f"  verified: {single.get('verified')} by {single.get('verified_by')} (one process), "
          f"{ranks.get('verified')} by {ranks.get('verified_by')} (ranks)")
    if bad:
        print("MISMATCH:\n  " + "\n  ".join(bad))
        return 1
    print(f"the {ranks['ranks']} ranks give the one process's result: {len(MUST_AGREE)} counts equal, both verified")
    return 0


if __name__ == "__main__":
    sys.exit(main())
