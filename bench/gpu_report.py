#!/usr/bin/env python3
"""What a GPU session brought back, made into the project's records (issue 36's "must show").

scripts/gpu_check.sh leaves in the device call's $OUT: the bench rows (<device>-<date>.json),
sweep-per-cycle.json and sweep-persistent.json (hcube sweep --json), ncu-alignment.csv
(scripts/gpu_ncu.sh) and gpu-logs.tar.gz. From that folder this script

  - copies the bench rows and the two sweeps into docs/gpu/ (the sweeps as
    sweep-<device>-<today>-<launch>.json) and draws the sweep's plot and CSV there with
    `hcube sweep --from ... --plot ... --csv ...` (the device has no gnuplot);
  - prints Markdown for docs/performance.md: the bench rows against the targets, the large-d
    table (d, launch, cycles, seconds, time a cycle, cycles and element-hops a second, ratio to the
    copy kernel) and the DRAM bytes Nsight Compute counted a kernel, over the data;
  - prints the check's PASS/FAIL/SKIP summary from the logs' archive.

usage: bench/gpu_report.py FOLDER [--hcube build/bin/hcube] [--docs docs/gpu] [--no-copy]
"""
import argparse
import csv
import datetime
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_bench  # noqa: E402  (the bench's own table and device names)

# Bytes of data a profiled run moved: 2^26 words (scripts/gpu_ncu.sh's -w 26) of its type.
NCU_WORDS = 1 << 26
WORD_BYTES = {"u32": 4, "u64": 8, "c128": 16}


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("gpu_report.py: {}: {}".format(path, e))


def sweep_markdown(sweeps):
    lines = ["| d | launch | words | cycles | seconds | a cycle | cycles/s | element-hops/s | ratio to copy | verified |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for doc in sweeps:
        for r in doc["rows"]:
            lines.append("| {} | {} | 2^{} | {} | {:.4g} | {:.2f} us | {:.3g} | {:.3g} | {:.2f} | {} |".format(
                r["d"], doc.get("launch", "-"), 2 * r["d"], r["cycles"], r["seconds"], 1e6 * r["seconds_per_cycle"],
                r["cycles_per_second"], r["element_hops_per_second"], r["ratio_to_memcpy"],
                "yes" if r.get("verified") else "no"))
    return "\n".join(lines)


def number(text):
    # ncu writes "268,435,456" where its locale groups digits.
    return float(text.replace(",", ""))


def ncu_runs(path):
    """{run name: [(launch id, kernel, metric, value)]} from gpu_ncu.sh's file: each run's CSV (ncu --csv,
    one row a launch and metric) after a line '# <run>: <the ncu command>'; and the runs it says failed."""
    runs, name, block, failed = {}, None, [], []

    def flush():
        if name is None:
            return
        rows = [r for r in csv.reader(io.StringIO("".join(block))) if r]
        out = []
        if rows and all(c in rows[0] for c in ("ID", "Kernel Name", "Metric Name", "Metric Value")):
            head = rows[0]
            i, k, m, v = (head.index(c) for c in ("ID", "Kernel Name", "Metric Name", "Metric Value"))
            for r in rows[1:]:
                if len(r) <= max(i, k, m, v):
                    continue
                try:
                    out.append((r[i], r[k], r[m], number(r[v])))
                except ValueError:
                    continue
        runs[name] = out

    with open(path) as f:
        for line in f:
            if line.startswith("# ") and ": " in line:
                run, rest = line[2:].split(": ", 1)
                if " " not in run and "--csv" in rest:  # a run's command line starts its CSV
                    flush()
                    name, block = run, []
                elif " " not in run and rest.startswith("FAILED"):
                    failed.append("{}: {}".format(run, rest.strip()))
                continue
            if name is not None and line.startswith('"'):
                block.append(line)
    flush()
    return runs, failed


def ncu_markdown(runs):
    lines = ["| run | kernel | launch | DRAM read / data | DRAM written / data | L2 write sectors x 32 / data | us |",
             "|---|---|---|---|---|---|---|"]
    for name, rows in runs.items():
        typ = next((t for t in WORD_BYTES if "-" + t in name), "u32")
        data = NCU_WORDS * WORD_BYTES[typ]
        if name.startswith("cycle"):
            data //= 2  # a routing cycle swaps K/2 words a node: half the data
        if not rows:
            lines.append("| {} | (no rows: see its lines in ncu-alignment.csv) | | | | | |".format(name))
            continue
        launches, kernels = {}, {}
        for launch, kernel, metric, value in rows:
            launches.setdefault(launch, {})[metric] = value
            kernels[launch] = kernel.split("(")[0].split("<")[0].replace("void ", "").strip()
        count = {}
        for launch, m in launches.items():
            count[kernels[launch]] = count.get(kernels[launch], 0) + 1

            def over(key, scale=1.0):
                return "-" if key not in m else "{:.2f}".format(m[key] * scale / data)

            us = "-" if "gpu__time_duration.sum" not in m else "{:.1f}".format(m["gpu__time_duration.sum"] / 1e3)
            lines.append("| {} | {} | {} | {} | {} | {} | {} |".format(
                name, kernels[launch], count[kernels[launch]], over("dram__bytes_read.sum"),
                over("dram__bytes_write.sum"), over("lts__t_sectors_op_write.sum", 32.0), us))
    return "\n".join(lines)


def summary_from_logs(path):
    """The check's summary lines (PASS/FAIL/SKIP), from the logs' archive where the run left them."""
    lines = []
    try:
        with tarfile.open(path) as t:
            for member in t.getmembers():
                if member.isfile() and member.name.endswith(".log") and "cuda-tests" in member.name:
                    text = t.extractfile(member).read().decode(errors="replace")
                    lines += [l for l in text.splitlines() if l.startswith("[  PASSED  ]") or l.startswith("[  FAILED  ]")]
    except (OSError, tarfile.TarError):
        pass
    return lines


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("folder", help="the device call's files (its files_at)")
    p.add_argument("--hcube", default="build/bin/hcube", help="draws the sweep's plot (needs gnuplot)")
    p.add_argument("--docs", default="docs/gpu", help="where the records go")
    p.add_argument("--no-copy", action="store_true", help="print the tables only")
    a = p.parse_args()
    if not os.path.isdir(a.folder):
        sys.exit("gpu_report.py: {} is not a folder".format(a.folder))
    names = sorted(os.listdir(a.folder))
    bench = [n for n in names if n.endswith(".json") and not n.startswith("sweep-")]
    sweeps = [n for n in ("sweep-per-cycle.json", "sweep-persistent.json") if n in names]
    if not bench and not sweeps and "ncu-alignment.csv" not in names:
        sys.exit("gpu_report.py: {} holds none of the bench rows, sweeps or ncu-alignment.csv".format(a.folder))
    os.makedirs(a.docs, exist_ok=True)

    for n in bench:
        doc = load_json(os.path.join(a.folder, n))
        if "rows" not in doc or "device" not in doc:
            sys.exit("gpu_report.py: {} is not bench/gpu_bench.sh's rows (no device or rows)".format(n))
        if not a.no_copy:
            shutil.copy(os.path.join(a.folder, n), os.path.join(a.docs, n))
        print("## Bench rows ({}, {}, commit {})\n".format(doc["device"], doc.get("date", "?"), doc.get("commit", "?")))
        print(gpu_bench.markdown(doc) + "\n")

    if sweeps:
        docs = [load_json(os.path.join(a.folder, n)) for n in sweeps]
        for n, doc in zip(sweeps, docs):
            if doc.get("command") != "sweep" or not doc.get("rows"):
                sys.exit("gpu_report.py: {} is not a sweep's --json output".format(n))
        stem = "sweep-{}-{}".format(gpu_bench.device_slug(docs[0].get("device", "device")),
                                     datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"))
        kept = []
        for n, doc in zip(sweeps, docs):
            target = os.path.join(a.docs, "{}-{}.json".format(stem, doc.get("launch", n[len("sweep-"):-len(".json")])))
            if not a.no_copy:
                shutil.copy(os.path.join(a.folder, n), target)
            kept.append(target if not a.no_copy else os.path.join(a.folder, n))
        print("## Large-d sweep ({}, {})\n".format(docs[0].get("device", "?"), docs[0].get("type", "?")))
        print(sweep_markdown(docs) + "\n")
        if not a.no_copy:
            cmd = [a.hcube, "sweep"]
            for k in kept:
                cmd += ["--from", k]
            cmd += ["--csv", os.path.join(a.docs, stem + ".csv")]
            if shutil.which("gnuplot"):
                cmd += ["--plot", os.path.join(a.docs, stem + ".svg")]
            else:
                print("no gnuplot here: the CSV alone (scripts/install-deps.sh installs gnuplot)\n")
            done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if done.returncode != 0:
                sys.exit("gpu_report.py: {} failed:\n{}".format(" ".join(cmd), done.stdout))
            print("written with `{}`\n".format(" ".join(cmd)))

    if "ncu-alignment.csv" in names:
        print("## Nsight Compute: bytes a launch over the data\n")
        runs, failed = ncu_runs(os.path.join(a.folder, "ncu-alignment.csv"))
        print(ncu_markdown(runs) + "\n")
        for f in failed:
            print("- " + f)

    if "gpu-logs.tar.gz" in names:
        lines = summary_from_logs(os.path.join(a.folder, "gpu-logs.tar.gz"))
        if lines:
            print("## CUDA tests\n\n" + "\n".join(lines))


if __name__ == "__main__":
    main()
