#!/usr/bin/env python3
"""Our schedules as real kernels, in two steps (docs/TTGIR.md, "Export to
Triton"; the record results/records/2026-11-27-triton-export.md):

  prepare (CPU, the tilesched binary): for the four shared kernels at
    num_stages S = 2..4 (those with a scheduled dump), the loop imported
    with Triton's rules as constraints (the import's default, docs/TTGIR.md)
    and the capped schedule (--max-stages S) of cost-based, ims and exact,
    exported with `tilesched export --to triton`; a refusal (which the
    rules make impossible) ends the run. With --unchecked, into another
    --out: the loop imported with --no-triton-rules and only the schedules
    the buffer rule refuses, exported anyway as GENERATOR+unchecked, to
    test the rule. Writes DIR/KERNEL_S{S}.GENERATOR.json, DIR/refused.tsv
    (--unchecked: unchecked.tsv) and DIR/MANIFEST.
  run (GPU: Triton 3.6, PyTorch): scripts/triton_schedule.py once per
    (kernel, S) with that configuration's exports, every row appended to
    CSV, Triton's own schedule first; a refused schedule gets a row
    "refused: ..." of its own.

usage: triton_campaign.py prepare [--out DIR] [--kernels-dir DIR] [--tilesched BIN] [--unchecked]
       triton_campaign.py run [--out DIR] --csv CSV [--only KERNEL ...] [--rounds N] [--control]
Exit status 2 with one line on bad input.
"""
import argparse
import csv
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CONFIGS = {  # kernel -> the file stem at num_stages S
    "matmul": "matmul_STAGES{S}_BM128_BN128_BK64_W8",
    "matmul_tma": "matmul_tma_STAGES{S}_BM128_BN128_BK64_W8_WS0",
    "attention": "attention_STAGES{S}_BM128_BN64_HEAD128_W8",
    "attention_tma": "attention_tma_STAGES{S}_BM128_BN128_HEAD128_W8_WS0",
}
STAGES = (2, 3, 4)
GENERATORS = (("cost-based", []), ("ims", []), ("exact", ["--time-limit", "60"]))


def die(msg):
    print(f"triton_campaign: {msg}", file=sys.stderr)
    sys.exit(2)


def relabel(path, source):
    with open(path) as f:
        e = json.load(f)
    e["source"] = source
    with open(path, "w") as f:
        json.dump(e, f, indent=1)
        f.write("\n")


def run_tool(args):
    r = subprocess.run(args, capture_output=True, text=True)
    return r.returncode, r.stderr.strip()


def export_one(tool, graph, schedule, out, gen, unchecked, refused, where):
    """Schedules `graph` with `schedule` (its graph left out) and exports
    it to `out`; a schedule the export refuses is noted in `refused` and,
    with `unchecked`, exported anyway (else the run ends: the import's
    rules should have made it impossible). Without `unchecked` every
    schedule is written, with it only the refused ones. True when `out`
    was written."""
    rc, err = run_tool(schedule[:2] + [graph] + schedule[2:])
    if rc != 0:
        die(f"{where}: schedule failed: {err}")
    rc, err = run_tool([tool, "export", graph, schedule[-1], "--to", "triton", "-o", out])
    if rc == 0 and unchecked:
        os.unlink(out)
        return False
    if rc == 2 and unchecked:
        refused.append((*where.split(" "), err.replace("tilesched export: ", "")))
        rc, err = run_tool([tool, "export", graph, schedule[-1], "--to", "triton",
                            "--skip-buffer-rule", "-o", out])
        if rc == 0:
            relabel(out, gen + "+unchecked")
    if rc != 0:
        die(f"{where}: {err}")
    return True


def prepare(args):
    tool = args.tilesched
    if not os.access(tool, os.X_OK):
        die(f"{tool}: no tilesched binary (build it: cmake --build --preset check)")
    if not glob.glob(os.path.join(args.kernels_dir, "*.triton-scheduled.ttgir")):
        die(f"{args.kernels_dir}: no *.triton-scheduled.ttgir dumps (give --kernels-dir)")
    os.makedirs(args.out, exist_ok=True)
    refused, made = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        graph = os.path.join(tmp, "g.loop.json")
        rules = ["--no-triton-rules"] if args.unchecked else []
        for kernel, stem in CONFIGS.items():
            for s in STAGES:
                dump = os.path.join(args.kernels_dir, stem.format(S=s) + ".triton-scheduled.ttgir")
                if not os.path.exists(dump):
                    continue
                rc, err = run_tool([tool, "import", "--from", "ttgir", dump, *rules, "-o", graph])
                if rc != 0:
                    die(f"{dump}: {err}")
                for gen, opts in GENERATORS:
                    schedule = [tool, "schedule", "-g", gen, *opts, "--max-stages", str(s), "-o",
                                os.path.join(tmp, "s.json")]
                    out = os.path.join(args.out, f"{kernel}_S{s}.{gen}.json")
                    made += export_one(tool, graph, schedule, out, gen, args.unchecked,
                                       refused, f"{kernel} {s} {gen}")
    name = "unchecked.tsv" if args.unchecked else "refused.tsv"
    with open(os.path.join(args.out, name), "w") as f:
        f.write("kernel\tnum_stages\tgenerator\twhy\n")
        for row in refused:
            f.write("\t".join(map(str, row)) + "\n")
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    how = ("graphs imported with --no-triton-rules; the refused ones exported anyway "
           "(--unchecked: only those)" if args.unchecked
           else "graphs imported with Triton's rules as constraints")
    with open(os.path.join(args.out, "MANIFEST"), "w") as f:
        f.write(f"made by scripts/triton_campaign.py prepare on commit {commit}: {made} exports, "
                f"{len(refused)} refused; {how}\n")
    print(f"{made} exports in {args.out}, {len(refused)} refused; {how}")


def run(args):
    exports = sorted(glob.glob(os.path.join(args.out, "*_S[0-9].*.json")))
    if not exports:
        die(f"{args.out}: no exports (run `triton_campaign.py prepare` first)")
    refused = []
    tsv = os.path.join(args.out, "refused.tsv")
    if os.path.exists(tsv):
        with open(tsv) as f:
            refused = list(csv.DictReader(f, delimiter="\t"))
    status = 0
    for kernel in CONFIGS:
        if args.only and kernel not in args.only:
            continue
        for s in STAGES:
            mine = [e for e in exports if os.path.basename(e).startswith(f"{kernel}_S{s}.")]
            if not mine:
                continue
            cmd = [sys.executable, os.path.join(HERE, "triton_schedule.py"), kernel, str(s), *mine,
                   "--csv", args.csv, "--rounds", str(args.rounds)]
            if args.control:
                cmd.append("--control")
            print("+ " + " ".join(cmd), flush=True)
            try:
                r = subprocess.run(cmd, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                with open(args.csv, "a", newline="") as f:
                    csv.writer(f).writerow([kernel, s, "all", "", f"timed-out after {args.timeout} s"])
                status = 1
                continue
            if r.returncode != 0:
                status = r.returncode
                if r.returncode == 2:
                    return status
    with open(args.csv, "a", newline="") as f:
        w = csv.writer(f)
        for row in refused:
            if not args.only or row["kernel"] in args.only:
                w.writerow([row["kernel"], row["num_stages"], row["generator"], "",
                            "refused: " + row["why"]])
    return status


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("step", choices=("prepare", "run"))
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "triton", "exports"))
    ap.add_argument("--kernels-dir", default=os.path.join(ROOT, "..", "shared", "kernels",
                                                          "triton-h200"))
    ap.add_argument("--tilesched", default=os.path.join(ROOT, "build", "check", "cli", "tilesched"))
    ap.add_argument("--csv")
    ap.add_argument("--only", nargs="*", choices=list(CONFIGS))
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--control", action="store_true")
    ap.add_argument("--unchecked", action="store_true",
                    help="prepare: only the schedules the buffer rule refuses, exported anyway "
                         "(export --skip-buffer-rule), to test the rule on a GPU")
    ap.add_argument("--timeout", type=int, default=240, help="seconds for one (kernel, S)")
    args = ap.parse_args(argv)
    if args.step == "prepare":
        prepare(args)
        return 0
    if not args.csv:
        die("run needs --csv FILE")
    return run(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
