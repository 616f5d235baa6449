"""The body of scripts/fidelity (its head says what it does): imports, schedules,
verifies and predicts every shared Triton configuration, prints the table and
the targets, writes fidelity.csv and the plot. Run through scripts/fidelity."""
import argparse
import concurrent.futures
import csv
import json
import os
import statistics
import subprocess
import sys

# Generator configurations every schedule is checked with: (label, flags).
GENERATORS = [
    ("serial", ["-g", "serial"]),
    ("cost-based/first-success", ["-g", "cost-based", "--arm-policy", "first-success"]),
    ("cost-based/best-cost", ["-g", "cost-based", "--arm-policy", "best-cost"]),
    ("cost-based-seed", ["-g", "cost-based-seed"]),
    ("ims", ["-g", "ims"]),
    ("sms", ["-g", "sms"]),
    ("exact", ["-g", "exact"]),
]
MAX_STAGES = 6          # tilesched stages --max
MEDIAN_TARGET = 0.10    # predicted ratio within 10 % of measured, median configuration
EVERY_TARGET = 0.20     # ... and within 20 % on every configuration
RECOMMEND_TARGET = 0.03 # recommended num_stages within 3 % of the best measured time
SMEM_TARGET = 0.05      # predicted shared memory within 5 %


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def must(cmd, what):
    r = run(cmd)
    if r.returncode != 0:
        raise RuntimeError(f"{what}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def schedule_and_verify(tool, graph, label, flags, cap, work, limit):
    """One generator on one graph: (ok, stage_count, message)."""
    stem = os.path.basename(graph)[: -len(".loop.json")]
    sched = os.path.join(work, f"{stem}.{label.replace('/', '_')}.cap{cap}.json")
    cmd = [tool, "schedule", graph, "-q", "--time-limit", str(limit), "-o", sched] + flags
    if cap:
        cmd += ["--max-stages", str(cap)]
    r = run(cmd)
    if r.returncode != 0:
        return False, None, f"{label} cap {cap}: schedule exit {r.returncode}: {r.stderr.strip()}"
    v = run([tool, "verify", graph, sched, "-q"])
    if v.returncode != 0:
        return False, None, f"{label} cap {cap}: does not verify: {v.stdout.strip()} {v.stderr.strip()}"
    s = json.load(open(sched))
    if cap and s["stage_count"] > cap:
        return False, s["stage_count"], f"{label}: {s['stage_count']} stages over the cap {cap}"
    return True, s["stage_count"], sched


def import_config(tool, kernels, tag, work):
    graph = os.path.join(work, f"{tag}.loop.json")
    must([tool, "import", "--from", "ttgir", "--strict", "-q",
          os.path.join(kernels, f"{tag}.input.ttgir"), "-o", graph], f"{tag}: import")
    triton = os.path.join(work, f"{tag}.triton.loop.json")
    must([tool, "import", "--from", "ttgir", "--strict", "-q",
          os.path.join(kernels, f"{tag}.triton-scheduled.ttgir"), "-o", triton],
         f"{tag}: import of Triton's schedule")
    return graph, triton


def predict(tool, graph, registers, warps):
    text = must([tool, "stages", graph, "--max", str(MAX_STAGES), "--registers", str(registers),
                 "--warps", str(warps), "--json", "-q"], f"{graph}: stages")
    return json.loads(text)


def stage_differences(our_schedule, triton_graph):
    """Ops whose stage in our schedule differs from Triton's loop.stage."""
    ours = {o["id"]: o["stage"] for o in json.load(open(our_schedule))["ops"]}
    theirs = {o["id"]: o.get("triton_stage") for o in json.load(open(triton_graph))["ops"]}
    diff = [f"{op} {ours[op]}/{theirs[op]}" for op in ours
            if op in theirs and theirs[op] is not None and theirs[op] != ours[op]]
    unmatched = sum(1 for op in ours if theirs.get(op) is None)
    return diff, unmatched, len(ours)


def check_config(args, m, work):
    """Everything about one configuration but the cross-configuration ratios."""
    tag, stages = m["tag"], m["config"]["STAGES"]
    graph, triton = import_config(args.tool, args.kernels, tag, work)
    problems, capped_cb = [], None
    for label, flags in GENERATORS:
        for cap in (0, stages):
            ok, count, msg = schedule_and_verify(args.tool, graph, label, flags, cap, work,
                                                 args.exact_limit)
            if not ok:
                problems.append(msg)
            elif cap and label == "cost-based/first-success":
                capped_cb = msg
    pred = predict(args.tool, graph, m["n_regs"], m["num_warps"])
    row = next(r for r in pred["stages"] if r["s"] == stages)
    diff, unmatched, ops = stage_differences(capped_cb, triton) if capped_cb else ([], 0, 0)
    return {"tag": tag, "kernel": m["kernel"], "stages": stages, "graph": graph,
            "problems": problems, "pred": row, "ii": row["ii"], "diff": diff,
            "unmatched": unmatched, "ops": ops}


def ratios(results, measured):
    """Predicted and measured time over the same kernel's best configuration."""
    by_kernel = {}
    for r in results:
        by_kernel.setdefault(r["kernel"], []).append(r)
    for rows in by_kernel.values():
        best_ms = min(measured[r["tag"]]["ms"] for r in rows)
        best_pred = min(r["pred"]["sm_cycles"] for r in rows if r["pred"]["sm_cycles"])
        for r in rows:
            r["measured_ratio"] = measured[r["tag"]]["ms"] / best_ms
            cycles = r["pred"]["sm_cycles"]
            r["predicted_ratio"] = cycles / best_pred if cycles else None
            r["best"] = measured[r["tag"]]["ms"] == best_ms
    return by_kernel


def recommendations(args, by_kernel, measured):
    out = {}
    for kernel, rows in by_kernel.items():
        regs = max(measured[r["tag"]]["n_regs"] for r in rows)
        warps = measured[rows[0]["tag"]]["num_warps"]
        pred = predict(args.tool, rows[0]["graph"], regs, warps)
        rec = pred["recommended"]
        at = [r["measured_ratio"] for r in rows if r["stages"] == rec]
        out[kernel] = {"recommended": rec, "registers": regs,
                       "measured_ratio": max(at) if at else None,  # the worse of WS0 / WS1
                       "curve": [(s["s"], s["relative_time"]) for s in pred["stages"]]}
    return out


def print_table(results, measured):
    print(f"{'configuration':50s} {'S':>2s} {'II':>4s} {'pred':>6s} {'meas':>6s} {'err':>7s} "
          f"{'smem pred':>9s} {'compiled':>9s} {'err':>6s}  stages differing from Triton's (ours/Triton)")
    for r in results:
        m = measured[r["tag"]]
        smem_err = r["pred"]["smem_bytes"] / m["shared_bytes"] - 1
        err = r["predicted_ratio"] / r["measured_ratio"] - 1 if r["predicted_ratio"] else float("nan")
        diff = f"{len(r['diff'])}/{r['ops']}" + (": " + ", ".join(r["diff"][:4]) if r["diff"] else "")
        if len(r["diff"]) > 4:
            diff += ", ..."
        print(f"{r['tag']:50s} {r['stages']:2d} {r['ii'] if r['ii'] is not None else '-':>4} "
              f"{r['predicted_ratio']:6.3f} {r['measured_ratio']:6.3f} {err:+7.1%} "
              f"{r['pred']['smem_bytes']:9d} {m['shared_bytes']:9d} {smem_err:+6.2%}  {diff}")


def write_csv(path, results, measured):
    tmp = path + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["configuration", "kernel", "num_stages", "ii", "ctas_per_sm",
                    "predicted_sm_cycles", "predicted_ratio", "measured_ms", "measured_ratio",
                    "ratio_error", "predicted_smem_bytes", "compiled_smem_bytes", "smem_error",
                    "n_regs", "stages_differing", "ops", "problems"])
        for r in results:
            m = measured[r["tag"]]
            w.writerow([r["tag"], r["kernel"], r["stages"], r["ii"], r["pred"]["ctas_per_sm"],
                        r["pred"]["sm_cycles"], f"{r['predicted_ratio']:.4f}", m["ms"],
                        f"{r['measured_ratio']:.4f}",
                        f"{r['predicted_ratio'] / r['measured_ratio'] - 1:.4f}",
                        r["pred"]["smem_bytes"], m["shared_bytes"],
                        f"{r['pred']['smem_bytes'] / m['shared_bytes'] - 1:.5f}", m["n_regs"],
                        len(r["diff"]), r["ops"], "; ".join(r["problems"])])
    os.replace(tmp, path)


def plot(out_dir, results):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("fidelity: no matplotlib: plot skipped")
        return
    plt.rcParams["svg.hashsalt"] = "tilesched-fidelity"  # stable ids: a rerun writes the same file
    fig, ax = plt.subplots(figsize=(6, 5.5))
    markers = {"matmul": "o", "matmul_tma": "s", "attention": "^", "attention_tma": "D"}
    for kernel in sorted({r["kernel"] for r in results}):
        xs = [r["measured_ratio"] for r in results if r["kernel"] == kernel]
        ys = [r["predicted_ratio"] for r in results if r["kernel"] == kernel]
        ax.scatter(xs, ys, marker=markers.get(kernel, "x"), s=50, label=kernel, alpha=0.8)
    hi = max(max(r["measured_ratio"], r["predicted_ratio"]) for r in results) * 1.05
    line = [0.95, hi]
    ax.plot(line, line, "k-", lw=0.8, label="exact")
    for band, style in ((0.10, "--"), (0.20, ":")):
        ax.plot(line, [x * (1 + band) for x in line], "k" + style, lw=0.6)
        ax.plot(line, [x * (1 - band) for x in line], "k" + style, lw=0.6,
                label=f"±{band:.0%}")
    ax.set_xlim(0.95, hi)
    ax.set_ylim(0.95 * 0.8, hi)
    ax.set_xlabel("measured time / best num_stages of the kernel (H200)")
    ax.set_ylabel("predicted time / best (hopper target)")
    ax.set_title("Triton kernels at several num_stages: predicted vs measured")
    ax.legend(fontsize=8)
    fig.tight_layout()
    for ext in ("png", "svg"):
        tmp = os.path.join(out_dir, f"fidelity.tmp.{ext}")
        fig.savefig(tmp, dpi=120, metadata={"Date": None} if ext == "svg" else None)  # stable file
        os.replace(tmp, os.path.join(out_dir, f"fidelity.{ext}"))


def report_targets(results, recs):
    scored = [r for r in results if not r["best"]]
    errs = [abs(r["predicted_ratio"] / r["measured_ratio"] - 1) for r in scored]
    med, worst = statistics.median(errs), max(errs)
    problems = [p for r in results for p in r["problems"]]
    print()
    for kernel, rec in recs.items():
        curve = " ".join(f"S{s}={t:.3f}" if t else f"S{s}=-" for s, t in rec["curve"])
        got = f"{rec['measured_ratio']:.3f}" if rec["measured_ratio"] else "not measured"
        print(f"recommended {kernel} ({rec['registers']} registers): num_stages "
              f"{rec['recommended']}, measured {got} of the best; predicted {curve}")
    smem = max(abs(r["pred"]["smem_bytes"] / m - 1) for r, m in
               ((r, r["compiled_smem"]) for r in results))
    recs_ok = all(r["measured_ratio"] is not None and r["measured_ratio"] <= 1 + RECOMMEND_TARGET
                  for r in recs.values())
    verdict = lambda ok: "holds" if ok else "FAILS"
    print()
    print(f"target: {len(results)} configurations import, every generator's schedule verifies and "
          f"stays within the cap: {verdict(not problems)}" +
          ("" if not problems else f" ({len(problems)} problems: {problems[0]})"))
    print(f"target: median |predicted/measured - 1| = {med:.1%} over {len(scored)} "
          f"configurations (best excluded), <= 10 %: {verdict(med <= MEDIAN_TARGET)}")
    print(f"target: largest |predicted/measured - 1| = {worst:.1%}, <= 20 %: "
          f"{verdict(worst <= EVERY_TARGET)}")
    print(f"target: every kernel's recommended num_stages within 3 % of its best measured time: "
          f"{verdict(recs_ok)}")
    print(f"target: predicted shared memory within 5 % (largest error {smem:.2%}): "
          f"{verdict(smem <= SMEM_TARGET)}")
    return not problems


def main():
    p = argparse.ArgumentParser()
    for opt in ("--tool", "--kernels", "--out", "--work"):
        p.add_argument(opt, required=True)
    p.add_argument("--exact-limit", type=int, default=5)
    args = p.parse_args()
    measured_list = json.load(open(os.path.join(args.kernels, "measured.json")))["results"]
    measured = {m["tag"]: m for m in measured_list}
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(lambda m: check_config(args, m, args.work), measured_list))
    except RuntimeError as e:
        print(f"fidelity: {e}", file=sys.stderr)
        return 1
    for r in results:
        r["compiled_smem"] = measured[r["tag"]]["shared_bytes"]
    by_kernel = ratios(results, measured)
    recs = recommendations(args, by_kernel, measured)
    print_table(results, measured)
    ok = report_targets(results, recs)
    write_csv(os.path.join(args.out, "fidelity.csv"), results, measured)
    plot(args.out, results)
    print(f"\nwrote {os.path.join(args.out, 'fidelity.csv')} and fidelity.png / .svg")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
