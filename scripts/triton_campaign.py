#!/usr/bin/env python3
"""Our schedules as real kernels (docs/TTGIR.md, "Export to Triton" and
"The GPU campaign"):

  candidates (CPU, the tilesched binary): `tilesched candidates` of the
    four shared kernels at num_stages S = 2..4 (those with a scheduled
    dump), into OUT/KERNEL_S{S}/ (default results/triton/candidates): every
    generator's distinct stage assignment under caps 1 to the stage bound
    and Triton's own, ranked by predicted time, with candidates.json.
  run (GPU: Triton 3.6, PyTorch), the campaign in one call: per
    configuration the control row first (Triton's own through the stages
    hook, the text unchanged), then the candidates (--order: spread, the
    best predicted, the worst, then the middles; or rank), each
    compiled, checked against PyTorch and timed against Triton's own in
    interleaved pairs (median of >= 20 samples each), its row appended to
    OUT-DIR/campaign.csv the moment it is known; a failure is a row; the
    run stops itself within --budget seconds; --campaigns 2 re-times what
    the first measured. Then OUT-DIR/summary.md (the table for README's
    "Real kernels") and summary.json: per kernel the Spearman rank
    correlation of predicted and measured time and whether a schedule of
    ours beats Triton's own beyond the campaigns' spread
    (campaign_runner.py, campaign_worker.py, campaign_stats.py). With
    --problem FILE.py:NAME, a kernel of your own (triton_bench.py).
  summary CSV...: the same table from the rows of one or several runs.
  prepare (CPU; with --unchecked, into another --out, only the schedules
    the buffer rule refuses, exported anyway as GENERATOR+unchecked, to
    test the rule; `run --exports DIR` times them): for the four shared
    kernels at S = 2..4, the loop imported with Triton's rules as
    constraints (the import's default; with --unchecked, without them)
    and the capped schedule (--max-stages S) of cost-based, ims and
    exact, exported with `tilesched export --to triton`; a refusal (which
    the rules make impossible) ends the run. Writes
    DIR/KERNEL_S{S}.GENERATOR.json, DIR/refused.tsv and DIR/MANIFEST.

usage: triton_campaign.py candidates [--out DIR] [--kernels-dir DIR] [--tilesched BIN]
       triton_campaign.py run --out-dir DIR [--budget S] [--campaigns N] [--only KERNEL ...]
                              [--stages S ...] [--candidates DIR | --exports DIR]
                              [--problem FILE.py:NAME --candidates DIR --stages S]
       triton_campaign.py summary CSV... [--out-dir DIR]
       triton_campaign.py prepare [--out DIR] [--kernels-dir DIR] [--tilesched BIN] [--unchecked]
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

import campaign_runner
import campaign_stats

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
    rules make a refusal impossible). Without `unchecked` every schedule
    is written, with it only the refused ones. True when `out` was written."""
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


def candidates(args):
    """`tilesched candidates` of every shared configuration with a scheduled
    dump at S = 2..4, into OUT/KERNEL_S{S}/."""
    tool = args.tilesched
    if not os.access(tool, os.X_OK):
        die(f"{tool}: no tilesched binary (build it: cmake --build --preset check)")
    out_root = args.out or os.path.join(ROOT, "results", "triton", "candidates")
    made = []
    with tempfile.TemporaryDirectory() as tmp:
        graph = os.path.join(tmp, "g.loop.json")
        for kernel, stem in CONFIGS.items():
            for s in STAGES:
                dump = os.path.join(args.kernels_dir, stem.format(S=s) + ".triton-scheduled.ttgir")
                if not os.path.exists(dump):
                    continue
                rc, err = run_tool([tool, "import", "--from", "ttgir", dump, "-q", "-o", graph])
                if rc != 0:
                    die(f"{dump}: {err}")
                where = os.path.join(out_root, f"{kernel}_S{s}")
                rc, err = run_tool([tool, "candidates", graph, "-o", where, "--time-limit",
                                    str(args.time_limit)])
                if rc != 0:
                    die(f"{dump}: {err}")
                made.append(f"{kernel}_S{s}: {err.rsplit(', in ', 1)[0]}")
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    with open(os.path.join(out_root, "MANIFEST"), "w") as f:
        f.write(f"made by scripts/triton_campaign.py candidates on commit {commit}\n")
        f.writelines(line + "\n" for line in made)
    print("\n".join(made))


def plan_configs(args):
    """[(kernel, S, directory or export list, problem spec)] to run."""
    if args.problem:
        if not args.candidates or not args.stages or len(args.stages) != 1:
            die("--problem needs --candidates DIR and one --stages S")
        return [(args.kernel or "user", args.stages[0], args.candidates, args.problem)]
    configs = []
    for kernel in CONFIGS:
        for s in args.stages or STAGES:
            if args.only and kernel not in args.only:
                continue
            if args.exports:
                mine = sorted(glob.glob(os.path.join(args.exports, f"{kernel}_S{s}.*.json")))
                if mine:
                    configs.append((kernel, s, mine, None))
                continue
            where = os.path.join(args.candidates, f"{kernel}_S{s}")
            if os.path.isdir(where):
                configs.append((kernel, s, where, None))
    return configs


def write_summary(rows, out_dir):
    summary = campaign_stats.summarize(rows)
    table = campaign_stats.markdown(summary)
    with open(os.path.join(out_dir, "summary.md"), "w", encoding="utf-8") as f:
        f.write(table)
    with open(os.path.join(out_dir, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    print(table, end="")


def run(args):
    if not args.out_dir:
        die("run needs --out-dir DIR")
    if args.rounds < 20 or args.campaigns < 1 or args.budget <= 0:
        die("--rounds must be >= 20, --campaigns >= 1 and --budget > 0")
    try:
        plan = campaign_runner.build_plan(plan_configs(args), args.order)
        rows = campaign_runner.run_campaigns(plan, args)
    except (OSError, ValueError, KeyError, campaign_runner.PlanError) as e:
        die(str(e))
    write_summary(rows, args.out_dir)
    return 0


def summary(args):
    rows = []
    for n, path in enumerate(args.csvs, 1):
        try:
            with open(path, newline="", encoding="utf-8") as f:
                mine = list(csv.DictReader(f))
        except OSError as e:
            die(f"{path}: {e}")
        if not mine or "campaign" not in mine[0]:
            die(f"{path}: no campaign rows (written by triton_campaign.py run)")
        for r in mine:  # campaigns of different files stay apart
            r["campaign"] = f"{n}.{r['campaign']}"
        rows += mine
    os.makedirs(args.out_dir or ".", exist_ok=True)
    write_summary(rows, args.out_dir or ".")
    return 0


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("step", choices=("prepare", "candidates", "run", "summary"))
    ap.add_argument("csvs", nargs="*", help="summary: the campaign CSVs to combine")
    ap.add_argument("--out", help="prepare, candidates: the directory written")
    ap.add_argument("--kernels-dir", default=os.path.join(ROOT, "..", "shared", "kernels",
                                                          "triton-h200"))
    ap.add_argument("--tilesched", default=os.path.join(ROOT, "build", "check", "cli", "tilesched"))
    ap.add_argument("--time-limit", type=float, default=5.0,
                    help="candidates: the oracle's seconds per stage cap")
    ap.add_argument("--unchecked", action="store_true",
                    help="prepare: only the schedules the buffer rule refuses, exported anyway "
                         "(export --skip-buffer-rule), to test the rule on a GPU")
    ap.add_argument("--out-dir", help="run, summary: campaign.csv, summary.md, summary.json, "
                                      "worker.log go here")
    ap.add_argument("--candidates", default=os.path.join(ROOT, "results", "triton", "candidates"),
                    help="run: the candidate lists (KERNEL_S{S}/ each; with --problem, one list)")
    ap.add_argument("--exports", help="run: prepare's exports instead of candidate lists")
    ap.add_argument("--only", nargs="*", choices=list(CONFIGS))
    ap.add_argument("--stages", nargs="*", type=int)
    ap.add_argument("--problem", help="run: FILE.py:NAME, a kernel of your own (triton_bench.py)")
    ap.add_argument("--kernel", help="run with --problem: the name its rows carry")
    ap.add_argument("--budget", type=float, default=480.0,
                    help="run: seconds for the whole run, every campaign (checked between rows)")
    ap.add_argument("--campaigns", type=int, default=2)
    ap.add_argument("--order", choices=("rank", "spread"), default="spread",
                    help="run: the candidates of a configuration by predicted rank, or the "
                         "best, the worst, then the middles (a cut-off run spans the range)")
    ap.add_argument("--first-share", type=float, default=0.7,
                    help="run: the first campaign's share of the budget (it compiles)")
    ap.add_argument("--rounds", type=int, default=20, help="run: timed pairs per row (>= 20)")
    ap.add_argument("--tolerance", type=float, default=1e-2,
                    help="run: the largest error relative to the largest |reference| that passes")
    ap.add_argument("--item-timeout", type=float, default=150.0,
                    help="run: seconds a worker may stay silent inside one row")
    ap.add_argument("--bench", default=os.path.join(HERE, "triton_bench.py") + ":TritonBench",
                    help="run: FILE.py:NAME of the bench (the tests give a fake)")
    return ap.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    if args.step == "prepare":
        args.out = args.out or os.path.join(ROOT, "results", "triton", "exports")
        prepare(args)
        return 0
    if args.step == "candidates":
        candidates(args)
        return 0
    if args.step == "summary":
        if not args.csvs:
            die("summary needs the campaign CSVs")
        return summary(args)
    return run(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
