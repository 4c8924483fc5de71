#!/usr/bin/env python3
"""The GPU figures of docs/performance.md in one run (bench/gpu_bench.sh calls this).

Runs `hcube bench` for each row of the issue's target table against the copy
kernel in the same process, and `hcube aapc --dims D` end to end (labels made,
the AAPC run, the result verified, all on the device), then writes the raw
rows as one JSON object -- {device, commit, date, command, rows: [{op, type,
log2_words, launch, ratio_to_copy_kernel, seconds, ...}]} -- to
docs/gpu/<device>-<date>.json (or --out), and prints them as a Markdown table.

--backend cpu runs the same rows on the CPU backend at small sizes: the
script's logic and the JSON it writes are tested that way where there is no
GPU (ctest hcube_gpu_bench_cpu); the figures mean nothing then.
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import time

# The GPU target table (docs/performance.md): (op, type, launch, extra hcube bench flags).
BENCH_ROWS = [
    ("memcpy", "uint32", "per-cycle", []),
    ("aapc", "uint32", "per-cycle", ["--algorithm", "4"]),
    ("aapc", "uint32", "persistent", ["--algorithm", "4"]),
    ("small-cycles", "uint32", "per-cycle", []),
    ("small-cycles", "uint32", "persistent", []),
    ("alignment", "uint32", "per-cycle", []),
    ("alignment", "uint64", "per-cycle", []),
    ("alignment", "complex128", "per-cycle", []),
    ("cycle", "uint32", "per-cycle", []),
    ("fused-transpose", "uint32", "per-cycle", []),
    ("fused-bit-reversal", "uint32", "per-cycle", []),
]
# The targets, by (op, type, launch): a ratio to the copy kernel, or
# for small cycles the seconds a cycle, or for the end-to-end run its time
# over the routing time.
TARGETS = {
    ("aapc", "uint32", "per-cycle"): ("ratio_to_copy_kernel", ">=", 0.25),
    ("aapc", "uint32", "persistent"): ("ratio_to_copy_kernel", ">=", 0.50),
    ("small-cycles", "uint32", "per-cycle"): ("seconds_per_cycle", "<=", 2e-6),
    ("alignment", "uint32", "per-cycle"): ("ratio_to_copy_kernel", ">=", 0.80),
    ("alignment", "uint64", "per-cycle"): ("ratio_to_copy_kernel", ">=", 0.80),
    ("alignment", "complex128", "per-cycle"): ("ratio_to_copy_kernel", ">=", 0.80),
    ("cycle", "uint32", "per-cycle"): ("ratio_to_copy_kernel", ">=", 0.85),
    ("fused-transpose", "uint32", "per-cycle"): ("ratio_to_copy_kernel", ">=", 0.88),
    ("fused-bit-reversal", "uint32", "per-cycle"): ("ratio_to_copy_kernel", ">=", 0.88),
    ("aapc-end-to-end", "uint32", "per-cycle"): ("over_routing", "<=", 2.0),
    ("aapc-end-to-end", "uint32", "persistent"): ("over_routing", "<=", 2.0),
}


def run_json(cmd):
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return json.loads(out.stdout)


def bench_row(hcube, backend, op, typ, launch, extra, log2_words, small_log2_words, repeat):
    w = small_log2_words if op == "small-cycles" else log2_words
    j = run_json([hcube, "bench", "--op", op, "-w", str(w), "-t", typ, "--backend", backend, "--launch", launch,
                  "--repeat", str(repeat), "--json"] + extra)
    row = {"op": op, "type": typ, "log2_words": w, "launch": launch,
           "ratio_to_copy_kernel": j["ratio_to_memcpy"], "seconds": j["seconds"],
           "copy_seconds": j["memcpy_seconds"], "bytes_moved": j["bytes_moved"],
           "ratio_to_spec": j["ratio_to_spec"], "roofline": j["roofline"],
           "ratio_runs": j["ratio_to_memcpy_runs"], "launch_stats": j["launch_stats"]}
    if "cycles" in j:
        row["cycles"] = j["cycles"]
        row["seconds_per_cycle"] = j["seconds_per_cycle"]
    if op == "aapc":
        row["algorithm"] = j["algorithm"]
    return row, j


def end_to_end_row(hcube, backend, dims, launch):
    # The whole command as a user runs it: labels made, the AAPC, the result
    # verified. `seconds` is the run's phases (what the process spent on the
    # data: copy-in, routing, alignments, verification), `wall_seconds` the
    # process with its start-up (a CUDA context, the schedule's host checks).
    start = time.monotonic()
    j = run_json([hcube, "aapc", "--dims", str(dims), "--backend", backend, "--launch", launch, "--json"])
    wall = time.monotonic() - start
    if j.get("verified") is not True:
        raise SystemExit("gpu_bench: hcube aapc --dims {} did not verify: {}".format(dims, j))
    phases = {name: p["seconds"] for name, p in j["counters"]["phases"].items()}
    routing = phases.get("routing", 0.0) + phases.get("alignment", 0.0)
    seconds = sum(phases.values())
    return {"op": "aapc-end-to-end", "type": j["type"], "log2_words": 2 * dims, "launch": launch,
            "ratio_to_copy_kernel": None, "seconds": seconds, "wall_seconds": wall,
            "routing_seconds": routing, "verify_seconds": phases.get("verify"),
            "copy_out_seconds": phases.get("copy-out"), "phases": phases,
            "over_routing": seconds / routing if routing > 0 else None,
            "kernel_launches": j["counters"]["kernel_launches"], "routing_cycles": j["counters"]["routing_cycles"]}


def commit_of(root):
    if os.environ.get("HCUBE_COMMIT"):
        return os.environ["HCUBE_COMMIT"]
    try:
        return subprocess.run(["git", "-C", root, "rev-parse", "--short=12", "HEAD"], check=True,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def device_slug(device):
    # "NVIDIA H100 80GB HBM3 (device 0, 79.1 GiB)" -> "nvidia-h100-80gb-hbm3"
    name = device.split(" (")[0]
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "device"


def target_text(row):
    t = TARGETS.get((row["op"], row["type"], row["launch"]))
    if t is None:
        return "-", ""
    key, sense, goal = t
    value = row.get(key)
    if value is None:
        return "{} {} {}".format(key, sense, goal), "?"
    met = value >= goal if sense == ">=" else value <= goal
    return "{} {} {:g}".format(key, sense, goal), "met" if met else "not met"


def markdown(doc):
    lines = ["| op | type | log2 words | launch | seconds | ratio to copy kernel | a cycle | target | |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        ratio = r["ratio_to_copy_kernel"]
        per_cycle = r.get("seconds_per_cycle")
        extra = ""
        if r["op"] == "aapc-end-to-end":
            extra = " (routing {:.4f} s, verify {} s, x{:.2f})".format(
                r["routing_seconds"], "-" if r["verify_seconds"] is None else "{:.4f}".format(r["verify_seconds"]),
                r["over_routing"] or 0)
        goal, met = target_text(r)
        lines.append("| {} | {} | {} | {} | {:.6f}{} | {} | {} | {} | {} |".format(
            r["op"], r["type"], r["log2_words"], r["launch"], r["seconds"], extra,
            "-" if ratio is None else "{:.2f}".format(ratio),
            "-" if per_cycle is None else "{:.2f} us".format(1e6 * per_cycle), goal, met))
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hcube", default="build/bin/hcube", help="the hcube program")
    p.add_argument("--backend", default="cuda", choices=["cuda", "cpu"])
    p.add_argument("--log2-words", type=int, default=28, help="2^W words for the bandwidth rows (default 28)")
    p.add_argument("--small-log2-words", type=int, default=10, help="2^W words for --op small-cycles (default 10)")
    p.add_argument("--dims", type=int, default=14, help="hcube aapc --dims D end to end (default 14)")
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--out", help="the JSON file (default docs/gpu/<device>-<date>.json)")
    a = p.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not os.access(a.hcube, os.X_OK):
        sys.exit("gpu_bench: {} is not built: run scripts/build.sh (or scripts/gpu_check.sh --bundle)".format(a.hcube))
    rows, device = [], None
    for op, typ, launch, extra in BENCH_ROWS:
        row, j = bench_row(a.hcube, a.backend, op, typ, launch, extra, a.log2_words, a.small_log2_words, a.repeat)
        device = device or j["device"]
        rows.append(row)
        print("gpu_bench: {} {} {}: {:.6f} s, {:.2f} of the copy kernel".format(op, typ, launch, row["seconds"],
                                                                             row["ratio_to_copy_kernel"]),
              file=sys.stderr, flush=True)
    for launch in ("per-cycle", "persistent"):
        rows.append(end_to_end_row(a.hcube, a.backend, a.dims, launch))
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    command = "bench/gpu_bench.sh " + " ".join(sys.argv[1:])
    doc = {"device": device, "commit": commit_of(root), "date": today, "backend": a.backend, "command": command.strip(),
           "rows": rows}
    out = a.out or os.path.join(root, "docs", "gpu", "{}-{}.json".format(device_slug(device), today))
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out + ".tmp", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(out + ".tmp", out)
    print("Device: {}; {}; commit {}; {}".format(device, today, doc["commit"], doc["command"]))
    print()
    print(markdown(doc))
    print()
    print("raw rows: {}".format(out))


if __name__ == "__main__":
    main()
