#!/usr/bin/env bash
# hcube bench under mpirun (docs/distributed.md): the run is verified, timed
# beside MPI_Alltoall of the same data and beside one process, and the words
# it sends between ranks are the model's:
#
#   bench.sh MPIEXEC HCUBE NP OP
#
# With r = log2 NP rank dimensions, the fused permutations (every rank bit
# taken from a local bit) send all but a 1/NP share of the data, each rank one
# message to every other rank; the AAPC sends r/2 of the data, a word once per
# rank dimension it crosses; one routing cycle exchanging words a < K/2 along
# dimension a mod n sends each such word on a rank dimension, in one message
# a partner; an
# alignment and memcpy send nothing; the redistribution sends each element
# whose source and destination nodes are on different ranks, once.
set -euo pipefail
mpiexec=$1 hcube=$2 np=$3 op=$4
source "$(dirname "$0")/mpirun_flags.sh"
out=$("$mpiexec" "${flags[@]}" -np "$np" "$hcube" bench --op "$op" --log2-words 12 --repeat 2 --type uint64 \
  --json --compare-single)
python3 - "$np" "$op" "$out" <<'PY'
import json, math, sys
np_, op, text = int(sys.argv[1]), sys.argv[2], sys.argv[3]
j = json.loads(text)
r, data = int(math.log2(np_)), 8 << 12
def need(cond, what):
    if not cond:
        sys.exit(f"bench --op {op} on {np_} ranks: {what}\n{text}")
need(j["command"] == "bench" and j["op"] == op, "not this bench's JSON")
need(j["ranks"] == np_ and j["rank_dims"] == r, "ranks and rank_dims")
need(j["verified"] is (None if op == "memcpy" else True), "not verified (memcpy: nothing to verify)")
for k in ("seconds", "mpi_alltoall_seconds", "ratio_to_mpi_alltoall", "single_seconds", "ratio_to_single"):
    need(isinstance(j[k], (int, float)) and math.isfinite(j[k]) and j[k] > 0, f"{k} not a positive number")
need(abs(j["ratio_to_mpi_alltoall"] - j["seconds"] / j["mpi_alltoall_seconds"]) <= 1e-9 * j["ratio_to_mpi_alltoall"],
     "ratio_to_mpi_alltoall is not seconds / mpi_alltoall_seconds")
need(len(j["mpi_alltoall_runs"]) == 2 and len(j["rank_traffic"]) == np_, "runs or per-rank traffic missing")
if op == "aapc":
    need(j["bytes_between_ranks"] == r * data // 2, f"bytes between ranks {j['bytes_between_ranks']}, model r/2 of {data}")
elif op == "cycle":
    n, K = j["n"], 1 << j["m"]
    crossing = sum(1 for a in range(K // 2) if a % n >= n - r) << n  # each exchange moves one word a node
    need(j["bytes_between_ranks"] == 8 * crossing, f"bytes between ranks {j['bytes_between_ranks']}, model {8 * crossing}")
    need(j["messages_between_ranks"] == np_ * r, "not one message to each partner")
elif op in ("alignment", "memcpy"):
    need(j["bytes_between_ranks"] == 0 and j["messages_between_ranks"] == 0, "words sent between ranks")
elif op == "redistribute":
    # R_x(P, K, Q), element g from source (g div x) mod P (node j) to destination
    # (g div Kx) mod Q (node P + q); a rank holds 2^(n - r) nodes.
    P, Q, K, x, n = j["P"], j["Q"], j["K"], j["x"], j["n"]
    rank = lambda node: node >> (n - r)
    crossing = sum(1 for g in range(1 << 12) if rank((g // x) % P) != rank(P + (g // (K * x)) % Q))
    need(j["bytes_between_ranks"] == 8 * crossing, f"bytes between ranks {j['bytes_between_ranks']}, model {8 * crossing}")
else:
    need(j["bytes_between_ranks"] == data - data // np_, f"bytes between ranks {j['bytes_between_ranks']}")
    need(j["messages_between_ranks"] == np_ * (np_ - 1), "not one message to every other rank")
    need(j["bytes_moved"] == 2 * data, "a fused pass reads and writes the data once")
print(f"bench --op {op} on {np_} ranks: verified, {j['ratio_to_mpi_alltoall']:.2f}x MPI_Alltoall, "
      f"{j['ratio_to_single']:.2f}x one process, {j['bytes_between_ranks']} bytes between ranks")
PY
