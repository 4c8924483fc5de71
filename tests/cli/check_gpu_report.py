#!/usr/bin/env python3
"""ctest hcube_gpu_report: bench/gpu_report.py on what a GPU session brings back, made here.

The sweeps are real (hcube sweep on the CPU backend, both launch modes); the bench rows and
Nsight Compute's CSV are written in their formats (gpu_bench.py's JSON; ncu --csv's columns,
digits grouped as ncu groups them), with DRAM bytes chosen so that the table's ratios are known:
the alignment's launch writes 1.8 times its 2^26 u32 words, the copy's 0.93.
usage: check_gpu_report.py --hcube BIN --out DIR
"""
import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "..", "..", "bench", "gpu_report.py")
DATA = (1 << 26) * 4


def fail(why):
    sys.exit("check_gpu_report.py: " + why)


def ncu_csv(run, rows):
    lines = ['# {}: /opt/ncu --csv --metrics dram__bytes_write.sum /hcube bench -w 26'.format(run),
             '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size",'
             '"Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"']
    for launch, kernel, metric, value in rows:
        lines.append('"{}","1","hcube","h","{}","1","7","(256, 1, 1)","(1024, 1, 1)","0","9.0","Command line profiler '
                     'metrics","{}","byte","{:,}"'.format(launch, kernel, metric, value))
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--hcube", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    shutil.rmtree(a.out, ignore_errors=True)
    came = os.path.join(a.out, "came-back")
    docs = os.path.join(a.out, "docs")
    os.makedirs(came)
    for launch in ("per-cycle", "persistent"):
        with open(os.path.join(came, "sweep-{}.json".format(launch)), "w") as f:
            subprocess.run([a.hcube, "sweep", "--backend", "cpu", "--dims-from", "3", "--dims-to", "4", "--algorithms",
                            "4", "--repeat", "1", "--launch", launch, "--json"], stdout=f, check=True)
    bench = {"device": "Test GPU (device 0, 1.0 GiB)", "commit": "abc", "date": "2026-11-28", "command": "test",
             "backend": "cuda",
             "rows": [{"op": "alignment", "type": "uint32", "log2_words": 28, "launch": "per-cycle",
                       "ratio_to_copy_kernel": 0.81, "seconds": 0.001}]}
    with open(os.path.join(came, "test-gpu-2026-11-28.json"), "w") as f:
        json.dump(bench, f)
    with open(os.path.join(came, "ncu-alignment.csv"), "w") as f:
        f.write(ncu_csv("align-u32", [
            ("0", "void apply_body<CopyBody>(T1, unsigned long)", "dram__bytes_write.sum", DATA * 93 // 100),
            ("1", "void align_xor_cosets<unsigned int>(AlignXorBody<T1>, XorCosets, unsigned long)",
             "dram__bytes_read.sum", DATA),
            ("1", "void align_xor_cosets<unsigned int>(AlignXorBody<T1>, XorCosets, unsigned long)",
             "dram__bytes_write.sum", DATA * 9 // 5),
            ("1", "void align_xor_cosets<unsigned int>(AlignXorBody<T1>, XorCosets, unsigned long)",
             "lts__t_sectors_op_write.sum", DATA // 32),
        ]))
        f.write("# align-u32-app-replay: FAILED, exit status 124 (timed out after 60 s)\n")
        f.write(ncu_csv("cycle-u32", [("2", "void apply_body<ExchangeBody>(T1, unsigned long)",
                                       "dram__bytes_write.sum", DATA // 2)]))
    done = subprocess.run([sys.executable, REPORT, came, "--hcube", a.hcube, "--docs", docs],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = done.stdout
    if done.returncode != 0:
        fail("gpu_report.py failed ({}):\n{}".format(done.returncode, out))
    for want in ["| alignment | uint32 | 28 | per-cycle |",
                 "| 4 | per-cycle | 2^8 | 8 |", "| 4 | persistent | 2^8 | 8 |",
                 "| align-u32 | apply_body | 1 | - | 0.93 | - | - |",
                 "| align-u32 | align_xor_cosets | 1 | 1.00 | 1.80 | 1.00 | - |",
                 "| cycle-u32 | apply_body | 1 | - | 1.00 | - | - |"]:
        if want not in out:
            fail("no line with {!r} in:\n{}".format(want, out))
    # The sweeps are named by the device they ran on (here the host's CPU) and today's date.
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    with open(os.path.join(came, "sweep-per-cycle.json")) as f:
        device = json.load(f)["device"]
    sys.path.insert(0, os.path.dirname(REPORT))
    import gpu_bench  # the device's name as the report writes it
    stem = "sweep-{}-{}".format(gpu_bench.device_slug(device), today)
    written = sorted(os.listdir(docs))
    for name in ("test-gpu-2026-11-28.json", stem + "-per-cycle.json", stem + "-persistent.json", stem + ".csv"):
        if name not in written:
            fail("{} was not written to {}: {}".format(name, docs, written))
    if shutil.which("gnuplot") and stem + ".svg" not in written:
        fail("no plot: {}".format(written))
    # A folder with nothing of a GPU run is refused in one line.
    empty = os.path.join(a.out, "empty")
    os.makedirs(empty)
    bad = subprocess.run([sys.executable, REPORT, empty, "--hcube", a.hcube, "--docs", docs],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if bad.returncode == 0 or "holds none of" not in bad.stdout:
        fail("an empty folder was not refused: {}".format(bad.stdout))
    print("gpu_report.py: tables, records and plot as expected")


if __name__ == "__main__":
    main()
