#!/usr/bin/env python3
"""Golden outputs of the hcube command line: each case's --json output (or, for
an error case, its exit status and standard error), with timings and
host-dependent fields taken out, against tests/cli/golden/<id>.json.

  golden.py --hcube PATH [--set single|mpi|all] [--mpiexec PATH] [--record] [--only ID,...]

Compare mode prints a unified diff of the first file that differs and exits 1;
--record writes the files instead (after a deliberate change of the output).
"""

import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN_DIR = os.path.join(HERE, "golden")

# Every data command runs on the CPU backend: "auto" would report this build's
# and this host's GPU, which the golden files must not depend on.
CPU = ["--backend", "cpu"]

# (id, argv after `hcube`, options). Options: before = commands run first
# (their output ignored), np = ranks under mpirun, fails = the command must fail
# (the case records its exit status and standard error instead of JSON). @DIR@ is the
# case's scratch directory.
CASES = [
    # schedule: the file format itself.
    ("schedule_4_d3", ["schedule", "--dims", "3", "--json"], {}),
    ("schedule_1_d3_n5_cw2", ["schedule", "-a", "1", "--dims", "3", "-n", "5", "--channel-width", "2", "--json"], {}),
    ("schedule_2_d4_blocked", ["schedule", "-a", "2", "--dims", "4", "--blocked", "--json"], {}),
    ("schedule_4_d4_type1", ["schedule", "--dims", "4", "--lines", "type1", "--json"], {}),
    # aapc: every algorithm, permutations, larger machines, wider channels.
    ("aapc_1_d3", ["aapc", "-a", "1", "--dims", "3", "--json"] + CPU, {}),
    ("aapc_2_d3_bitrev", ["aapc", "-a", "2", "--dims", "3", "-p", "bit-reversal", "--json"] + CPU, {}),
    ("aapc_3_d4_vecrev", ["aapc", "-a", "3", "--dims", "4", "-p", "vector-reversal", "--json"] + CPU, {}),
    ("aapc_4_d4_gray", ["aapc", "-a", "4", "--dims", "4", "-p", "gray", "--json"] + CPU, {}),
    ("aapc_4_d3_n5_m4", ["aapc", "--dims", "3", "-n", "5", "-m", "4", "--type", "uint64", "--json"] + CPU, {}),
    ("aapc_4_d4_cm2", ["aapc", "--dims", "4", "--channel-width", "cm2", "--json"] + CPU, {}),
    ("aapc_1_d4_blocked", ["aapc", "-a", "1", "--dims", "4", "--blocked", "--json"] + CPU, {}),
    ("aapc_4_d4_greedy_c2c", ["aapc", "--dims", "4", "--lines", "greedy", "-p", "consecutive-to-cyclic",
                              "--json"] + CPU, {}),
    ("aapc_edelman_d4", ["aapc", "-a", "edelman", "--dims", "4", "--json"] + CPU, {}),
    ("aapc_edelman_d3_unaligned", ["aapc", "-a", "edelman", "--dims", "3", "--unaligned", "--json"] + CPU, {}),
    ("aapc_sex_d3", ["aapc", "-a", "sex", "--dims", "3", "--json"] + CPU, {}),
    ("aapc_dex_d3_m5", ["aapc", "-a", "dex", "--dims", "3", "-m", "5", "--type", "float", "--json"] + CPU, {}),
    ("aapc_trace_d2", ["aapc", "--dims", "2", "--trace", "--json"] + CPU, {}),
    ("aapc_trace_1_d2", ["aapc", "-a", "1", "--dims", "2", "-p", "bit-reversal", "--trace", "--json"] + CPU, {}),
    # run: a schedule file written by `schedule --output`.
    ("run_schedule_4_d3_cw2", ["run", "-s", "@DIR@/s.json", "--json"] + CPU,
     {"before": [["schedule", "--dims", "3", "--channel-width", "2", "-o", "@DIR@/s.json"]]}),
    ("run_schedule_3_d4_n5", ["run", "-s", "@DIR@/s.json", "--type", "double", "--json"] + CPU,
     {"before": [["schedule", "-a", "3", "--dims", "4", "-n", "5", "-o", "@DIR@/s.json"]]}),
    # multi-aapc: pipelined, sequential, orders, unequal axes, Algorithm 5.
    ("multi_aapc_4_s2_d2", ["multi-aapc", "--axes", "2", "--dims", "2", "--json"] + CPU, {}),
    ("multi_aapc_1_s2_d3_seq", ["multi-aapc", "--axes", "2", "--dims", "3", "-a", "1", "--sequential",
                                "--json"] + CPU, {}),
    ("multi_aapc_3_s3_d2_order", ["multi-aapc", "--axes", "3", "--dims", "2", "-a", "3", "--order", "2,0,1",
                                  "--json"] + CPU, {}),
    ("multi_aapc_unequal", ["multi-aapc", "--dims", "3,2,2", "-a", "1", "--json"] + CPU, {}),
    ("multi_aapc_5_s3_d2_figure", ["multi-aapc", "--axes", "3", "--dims", "2", "-a", "5", "--figure",
                                   "--json"] + CPU, {}),
    ("multi_aapc_5_s4_d2_paper", ["multi-aapc", "--axes", "4", "--dims", "2", "-a", "5", "--layout", "paper",
                                  "--json"] + CPU, {}),
    ("multi_aapc_trace_s2_d1", ["multi-aapc", "--axes", "2", "--dims", "1", "--trace", "--json"] + CPU, {}),
    ("run_multi_aapc_s2_d2", ["run", "-s", "@DIR@/s.json", "--json"] + CPU,
     {"before": [["multi-aapc", "--axes", "2", "--dims", "2", "-a", "3", "--save-schedule", "@DIR@/s.json"] + CPU]}),
    # permute: the model's choice, each algorithm, fused, the extended cube.
    ("permute_transpose", ["permute", "--perm", "transpose", "-n", "3", "-m", "3", "--json"] + CPU, {}),
    ("permute_bitrev_all", ["permute", "--perm", "bit-reversal", "-n", "3", "-m", "3", "--ports", "all",
                            "--json"] + CPU, {}),
    ("permute_shuffle_A2", ["permute", "--perm", "shuffle:2", "-n", "3", "-m", "3", "-a", "A2", "--json"] + CPU, {}),
    ("permute_A1prime", ["permute", "--perm", "5,2,7,0,3,6,1,4", "-a", "A1'", "--json"] + CPU, {}),
    ("permute_A3_packet", ["permute", "--perm", "unshuffle:3", "-n", "3", "-m", "3", "-a", "A3", "--ts", "4",
                           "--packet", "4", "--json"] + CPU, {}),
    ("permute_A5_gamma", ["permute", "--perm", "transpose", "-n", "3", "-m", "3", "--ports", "all", "-a", "A5",
                          "--gamma", "1", "--json"] + CPU, {}),
    ("permute_A6_swap", ["permute", "--perm", "swap-axes:0:4:2", "-n", "3", "-m", "3", "--ports", "all", "-a", "A6",
                         "--json"] + CPU, {}),
    ("permute_edelman", ["permute", "--perm", "bit-reversal", "-n", "3", "-m", "3", "--ports", "all", "-a",
                         "Edelman", "--json"] + CPU, {}),
    ("permute_fused_mixed", ["permute", "--fused", "--perm", "5,2,7,0,3,6,1,4", "--type", "uint64",
                             "--json"] + CPU, {}),
    ("permute_subcube", ["permute", "--perm", "0,1,2,4,5,3", "-n", "5", "-m", "3", "--subcube-dims", "3",
                         "--json"] + CPU, {}),
    # fft
    ("fft_P6_n2", ["fft", "-P", "6", "-n", "2", "--json"] + CPU, {}),
    ("fft_P8_n3_radix2_inverse", ["fft", "-P", "8", "-n", "3", "--local", "radix-2", "--order", "bit-reversed",
                                  "--inverse", "-a", "1", "--type", "complex64", "--json"] + CPU, {}),
    # redistribute: each schedule, --y, both directions.
    ("redistribute_circulant", ["redistribute", "--P", "3", "--Q", "5", "--K", "2", "--x", "2", "--json"] + CPU, {}),
    ("redistribute_caterpillar_reverse", ["redistribute", "--P", "4", "--Q", "6", "--K", "3", "--x", "1",
                                          "--schedule", "caterpillar", "--reverse", "--json"] + CPU, {}),
    ("redistribute_bipartite_overlap", ["redistribute", "--P", "5", "--Q", "3", "--K", "2", "--x", "3",
                                        "--schedule", "bipartite-greedy", "--overlap", "--json"] + CPU, {}),
    ("redistribute_y", ["redistribute", "--P", "3", "--Q", "4", "--x", "2", "--y", "3", "--N", "288",
                        "--json"] + CPU, {}),
    # scatter: rings, tori, meshes, the cube, the embedding.
    ("scatter_ring_bidirectional", ["scatter", "--topology", "ring:5", "-a", "bidirectional", "--json"] + CPU, {}),
    ("scatter_torus_product", ["scatter", "--topology", "torus:3x4", "--packet-words", "2", "--json"] + CPU, {}),
    ("scatter_mesh_bex_embed", ["scatter", "--topology", "mesh:4x4", "-a", "bex", "--embed", "cube",
                                "--json"] + CPU, {}),
    ("scatter_cube_sex", ["scatter", "--topology", "cube:3", "-a", "sex", "--json"] + CPU, {}),
    ("scatter_ring_dex", ["scatter", "--topology", "ring:8", "-a", "dex", "--json"] + CPU, {}),
    ("scatter_mesh_product", ["scatter", "--topology", "mesh:3x4", "-a", "product", "--json"] + CPU, {}),
    ("scatter_mesh_qex", ["scatter", "--topology", "mesh:4x4", "-a", "qex", "--packet-words", "2", "--json"] + CPU, {}),
    # the primitives
    ("cycle_two", ["cycle", "-n", "3", "-m", "3", "--channel-width", "2", "--cycle", "0:1,2:3,2:5:6",
                   "--cycle", "1:0,0:7", "--json"] + CPU, {}),
    ("cycle_one_port_trace", ["cycle", "-n", "2", "-m", "2", "--port-model", "one", "--cycle", "1:2",
                              "--trace", "--json"] + CPU, {}),
    ("align_gray", ["align", "-n", "3", "-m", "3", "--xor-proc", "0,2", "--xor-mem", "0,1", "--mem-perm", "2,0,1",
                    "--gray", "0:2:encode", "--json"] + CPU, {}),
    ("route_contention", ["route", "-n", "3", "-m", "3", "-B", "2", "--message", "0:0:5:4:2", "--message",
                          "6:1:5:6:2", "--message", "2:3:0:7", "--json"] + CPU, {}),
    # errors: the exit status and what standard error says.
    ("error_aapc_m_below_d", ["aapc", "--dims", "4", "-m", "2"] + CPU, {"fails": True}),
    ("error_permute_bad_perm", ["permute", "--perm", "0,0,1", "-n", "1", "-m", "2"] + CPU, {"fails": True}),
    ("error_run_missing_file", ["run", "-s", "@DIR@/absent.json"] + CPU, {"fails": True}),
    ("error_unknown_algorithm", ["aapc", "--dims", "3", "-a", "7"], {"fails": True}),
    # under mpirun: the ranks' JSON, its own counters and traffic.
    ("mpi_np2_aapc_4_d4", ["aapc", "--dims", "4", "--json"] + CPU, {"np": 2}),
    ("mpi_np2_permute_fused", ["permute", "--fused", "--perm", "transpose", "-n", "4", "-m", "4", "--json"] + CPU,
     {"np": 2}),
    ("mpi_np2_redistribute", ["redistribute", "--P", "3", "--Q", "5", "--K", "2", "--x", "2", "--json"] + CPU,
     {"np": 2}),
    ("mpi_np2_multi_aapc", ["multi-aapc", "--axes", "2", "--dims", "2", "--json"] + CPU, {"np": 2}),
    ("mpi_np2_error_scatter", ["scatter", "--topology", "cube:3"] + CPU, {"np": 2, "fails": True}),
]

# Wall-clock times, rates and stamps: a key named so, or ending so.
TIME_KEY = re.compile(r"(^|_)(seconds|per_second|timestamp|created)$|^seconds_|_seconds_|ratio_to_")
# What the host decides: its name, cores, caches, tuned tiles and where its wisdom lies.
HOST_KEYS = {"hostname", "threads", "fftw_threads", "tile_bytes", "wisdom", "wisdom_path", "cpu", "l2_bytes",
             "l3_bytes"}
# Rounding of the local transforms depends on FFTW's codelets for this CPU.
FLOAT_NOISE_KEYS = {"max_relative_error"}


def normalize(value, scratch):
    if isinstance(value, dict):
        return {k: normalize(v, scratch) for k, v in value.items()
                if not TIME_KEY.search(k) and k not in HOST_KEYS and k not in FLOAT_NOISE_KEYS}
    if isinstance(value, list):
        return [normalize(v, scratch) for v in value]
    if isinstance(value, str):
        value = value.replace(scratch, "@DIR@")
        # "host CPU, 2 hardware threads": the count is this host's.
        return re.sub(r"\d+ hardware threads?", "N hardware threads", value)
    return value


def run_case(case, hcube, mpiexec):
    cid, argv, opts = case
    scratch = tempfile.mkdtemp(prefix="hcube-golden-")
    try:
        sub = lambda args: [a.replace("@DIR@", scratch) for a in args]
        env = dict(os.environ)
        # No tuned wisdom and a fixed team: the plans are the defaults on every host.
        env["HCUBE_WISDOM"] = os.path.join(scratch, "no-wisdom.json")
        env["OMP_NUM_THREADS"] = "2"
        for before in opts.get("before", []):
            subprocess.run([hcube] + sub(before), env=env, check=True, stdout=subprocess.DEVNULL, cwd=scratch)
        cmd = [hcube] + sub(argv)
        if "np" in opts:
            flags = ["--oversubscribe"] + (["--allow-run-as-root"] if os.getuid() == 0 else [])
            cmd = [mpiexec] + flags + ["-np", str(opts["np"])] + cmd
        p = subprocess.run(cmd, env=env, cwd=scratch, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=120)
        if opts.get("fails"):
            if p.returncode == 0:
                raise RuntimeError(f"{cid}: expected a failure, exit status 0")
            lines = p.stderr.splitlines()
            if "np" in opts:
                # hcube's own lines, not mpirun's banner about the failed job; every rank
                # says the same line, in no fixed order; mpirun's status is its own.
                lines = sorted(set(l for l in lines if l.startswith("hcube")))
            text = "\n".join(lines).replace(hcube, "hcube").replace(scratch, "@DIR@")
            result = {"exit_code": "non-zero" if "np" in opts else p.returncode, "stderr": text}
        else:
            if p.returncode != 0:
                raise RuntimeError(f"{cid}: exit status {p.returncode}\n{p.stderr}")
            result = normalize(json.loads(p.stdout), scratch)
        return json.dumps(result, indent=2, sort_keys=True) + "\n"
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hcube", required=True)
    ap.add_argument("--mpiexec", help="the launcher of the mpirun cases")
    ap.add_argument("--set", choices=["single", "mpi", "all"], default="single",
                    help="the one-process cases, the mpirun cases (needs --mpiexec) or both")
    ap.add_argument("--record", action="store_true", help="write the golden files instead of comparing")
    ap.add_argument("--only", help="comma-separated case ids")
    args = ap.parse_args()
    hcube = os.path.abspath(args.hcube)
    only = set(args.only.split(",")) if args.only else None
    ids = [c[0] for c in CASES]
    if len(set(ids)) != len(ids):
        sys.exit("golden.py: two cases share an id")
    if args.set != "single" and not args.mpiexec:
        sys.exit("golden.py: the mpirun cases need --mpiexec")
    ran = 0
    for case in CASES:
        cid, _, opts = case
        if only is not None and cid not in only:
            continue
        if ("np" in opts) != (args.set == "mpi") and args.set != "all":
            continue
        text = run_case(case, hcube, args.mpiexec)
        path = os.path.join(GOLDEN_DIR, cid + ".json")
        if args.record:
            os.makedirs(GOLDEN_DIR, exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        else:
            if not os.path.exists(path):
                print(f"{cid}: no golden file {path} (golden.py --record writes it)")
                return 1
            with open(path) as f:
                want = f.read()
            if want != text:
                sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), text.splitlines(True),
                                                           f"golden/{cid}.json", f"hcube {cid}"))
                print(f"\n{cid}: the output differs from tests/cli/golden/{cid}.json")
                return 1
        ran += 1
    # A golden file no case writes is a case lost, not a pass.
    if only is None and not args.record:
        stray = sorted(set(f[:-5] for f in os.listdir(GOLDEN_DIR) if f.endswith(".json")) - set(ids))
        if stray:
            print(f"golden files without a case: {stray}")
            return 1
    print(f"{ran} cases {'recorded' if args.record else 'match'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
