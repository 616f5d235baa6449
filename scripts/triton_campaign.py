#!/usr/bin/env python3
"""Our schedules as real kernels, in two steps (docs/TTGIR.md, "Export to
Triton"; the record results/records/2026-11-27-triton-export.md):

  prepare (CPU, the tilesched binary; with --unchecked, into another --out,
    only the schedules the buffer rule refuses, exported anyway as
    GENERATOR+unchecked, to test the rule): for the four shared kernels at
    num_stages S = 2..4 (those with a scheduled dump), the capped schedule
    (--max-stages S) of cost-based, ims and exact, exported with
    `tilesched export --to triton`. Where the export refuses a schedule
    (the buffer rule), the graph is scheduled again with each local_alloc
    and the ops reading its buffer in one leader_gid group (rule L5: one
    stage), which the rule accepts; that export's source is GENERATOR+pinned
    and the refusal goes to refused.tsv. Writes DIR/KERNEL_S{S}.GENERATOR.json,
    DIR/refused.tsv and DIR/MANIFEST.
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


def pin_buffers(graph):
    """The graph with each ttg.local_alloc and the ops reading its buffer
    (distance-0 data edges) in one leader_gid group, so that every
    generator puts them in one stage; groups joined where they share an op."""
    ops = graph["ops"]
    index = {o["id"]: i for i, o in enumerate(ops)}
    parent = list(range(len(ops)))

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i
    for e in graph["edges"]:
        u, v = index[e["from"]], index[e["to"]]
        if (ops[u].get("source_op") == "ttg.local_alloc" and e.get("distance", 0) == 0
                and e.get("kind", "data") == "data"):
            parent[root(v)] = root(u)
    members = {}
    for i in range(len(ops)):
        members.setdefault(root(i), []).append(i)
    taken = {o["leader_gid"] for o in ops if "leader_gid" in o}
    gid = max(taken, default=0)
    for r in sorted(members):
        if len(members[r]) > 1:
            gid += 1
            for i in members[r]:
                ops[i]["leader_gid"] = gid
    return graph


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


def export_one(tool, graphs, schedule, out, gen, unchecked, refused, where):
    """Schedules graphs[0] with `schedule` (its graph left out) and exports
    it to `out`; a schedule the buffer rule refuses is noted in `refused`
    and then, with `unchecked`, exported anyway, else scheduled again on
    the pinned graphs[1]. Without `unchecked` every schedule is written,
    with it only the refused ones. True when `out` was written."""
    graph, pinned = graphs
    sched = schedule[-1]
    rc, err = run_tool(schedule[:2] + [graph] + schedule[2:])
    if rc != 0:
        die(f"{where}: schedule failed: {err}")
    rc, err = run_tool([tool, "export", graph, sched, "--to", "triton", "-o", out])
    if rc == 0 and unchecked:
        os.unlink(out)
        return False
    if rc == 2:
        refused.append((*where.split(" "), err.replace("tilesched export: ", "")))
        if unchecked:
            rc, err = run_tool([tool, "export", graph, sched, "--to", "triton",
                                "--skip-buffer-rule", "-o", out])
            label = gen + "+unchecked"
        else:
            rc, err = run_tool(schedule[:2] + [pinned] + schedule[2:])
            if rc == 0:
                rc, err = run_tool([tool, "export", pinned, sched, "--to", "triton", "-o", out])
            label = gen + "+pinned"
        if rc == 0:
            relabel(out, label)
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
        graph, pinned = os.path.join(tmp, "g.loop.json"), os.path.join(tmp, "pinned.loop.json")
        for kernel, stem in CONFIGS.items():
            for s in STAGES:
                dump = os.path.join(args.kernels_dir, stem.format(S=s) + ".triton-scheduled.ttgir")
                if not os.path.exists(dump):
                    continue
                rc, err = run_tool([tool, "import", "--from", "ttgir", dump, "-o", graph])
                if rc != 0:
                    die(f"{dump}: {err}")
                with open(graph) as f:
                    g = json.load(f)
                with open(pinned, "w") as f:
                    json.dump(pin_buffers(g), f)
                for gen, opts in GENERATORS:
                    schedule = [tool, "schedule", "-g", gen, *opts, "--max-stages", str(s), "-o",
                                os.path.join(tmp, "s.json")]
                    out = os.path.join(args.out, f"{kernel}_S{s}.{gen}.json")
                    made += export_one(tool, (graph, pinned), schedule, out, gen, args.unchecked,
                                       refused, f"{kernel} {s} {gen}")
    name = "unchecked.tsv" if args.unchecked else "refused.tsv"
    with open(os.path.join(args.out, name), "w") as f:
        f.write("kernel\tnum_stages\tgenerator\twhy\n")
        for row in refused:
            f.write("\t".join(map(str, row)) + "\n")
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    how = "exported anyway (--unchecked: only those)" if args.unchecked else "scheduled again pinned"
    with open(os.path.join(args.out, "MANIFEST"), "w") as f:
        f.write(f"made by scripts/triton_campaign.py prepare on commit {commit}: {made} exports, "
                f"{len(refused)} refused by the buffer rule and {how}\n")
    print(f"{made} exports in {args.out}, {len(refused)} refused and {how}")


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
