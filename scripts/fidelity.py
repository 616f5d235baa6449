"""The body of scripts/fidelity (its head says what it does): imports, schedules,
verifies and predicts every shared Triton configuration, prints the tables,
the leave-one-kernel-out check and the targets, writes fidelity.csv and the
plot. Run through scripts/fidelity; the pure parts (grouping, errors, fits)
are tested by scripts/fidelity_test.py without the tool."""
import argparse
import concurrent.futures
import json
import os
import sys

from fidelity_model import (EVERY_TARGET, MEDIAN_TARGET, RECOMMEND_TARGET, SMEM_TARGET,
                            SHARED_EVERY, SHARED_MEDIAN, best_fit, errors, group_key,
                            group_label, kernel_shape, ratios, recommendation_holds, summary)

GENERATORS = [
    ("serial", ["-g", "serial"]),
    ("cost-based/first-success", ["-g", "cost-based", "--arm-policy", "first-success"]),
    ("cost-based/best-cost", ["-g", "cost-based", "--arm-policy", "best-cost"]),
    ("cost-based-seed", ["-g", "cost-based-seed"]),
    ("ims", ["-g", "ims"]),
    ("sms", ["-g", "sms"]),
    ("exact", ["-g", "exact"]),
]
MAX_STAGES = 6                         # tilesched stages --max
FIT_CAPS = list(range(1000, 2401, 100))  # kMaxLoadedMemoryLatency candidates (cycles)
FIT_L2 = [32, 36, 40, 44, 48]            # kL2BytesPerCycle candidates (bytes/cycle/SM)


def run(cmd):
    import subprocess
    return subprocess.run(cmd, capture_output=True, text=True)


def must(cmd, what):
    r = run(cmd)
    if r.returncode != 0:
        raise RuntimeError(f"{what}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def schedule_and_verify(tool, graph, label, flags, cap, work, limit):
    """One generator on one graph: (ok, stage_count, schedule path or message)."""
    stem = os.path.basename(graph)[: -len(".loop.json")]
    sched = os.path.join(work, f"{stem}.{label.replace('/', '_')}.cap{cap}.json")
    cmd = [tool, "schedule", graph, "-q", "-o", sched] + flags
    if "exact" in flags:  # the oracle's budget; other generators refuse the option
        cmd += ["--time-limit", str(limit)]
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


def stages_json(tool, graph, extra):
    return json.loads(must([tool, "stages", graph, "--json", "-q"] + extra, f"{graph}: stages"))


def stage_differences(our_schedule, triton_graph):
    """Ops whose stage in our schedule differs from Triton's loop.stage."""
    ours = {o["id"]: o["stage"] for o in json.load(open(our_schedule))["ops"]}
    theirs = {o["id"]: o.get("triton_stage") for o in json.load(open(triton_graph))["ops"]}
    diff = [f"{op} {ours[op]}/{theirs[op]}" for op in ours
            if op in theirs and theirs[op] is not None and theirs[op] != ours[op]]
    return diff, len(ours)


def check_config(args, m):
    """Everything about one configuration but the cross-configuration ratios."""
    tag, stages = m["tag"], m["config"]["STAGES"]
    graph, triton = import_config(args.tool, args.kernels, tag, args.work)
    problems, capped_cb, uncapped_cb = [], None, None
    for label, flags in GENERATORS:
        for cap in (0, stages):
            ok, count, msg = schedule_and_verify(args.tool, graph, label, flags, cap, args.work,
                                                 args.exact_limit)
            if not ok:
                problems.append(msg)
            elif label == "cost-based/first-success":
                if cap:
                    capped_cb = msg
                else:
                    uncapped_cb = count
    grid, trip = kernel_shape(m)
    pred = stages_json(args.tool, graph, ["--max", str(MAX_STAGES), "--registers", str(m["n_regs"]),
                                          "--warps", str(m["num_warps"]), "--grid", str(grid),
                                          "--trip", str(trip)])
    row = next(r for r in pred["stages"] if r["s"] == stages)
    diff, ops = stage_differences(capped_cb, triton) if capped_cb else ([], 0)
    return {"tag": tag, "kernel": m["kernel"], "group": group_key(m), "stages": stages,
            "fit": pred["fit"],
            "graph": graph, "problems": problems, "pred": row, "ii": row["ii"], "diff": diff,
            "ops": ops, "uncapped_stage_count": uncapped_cb, "m": m}


def fit_predictions(args, results):
    """{(cap, l2): {tag: sm_cycles}} for every candidate of the fitted constants."""
    def one(job):
        (cap, l2), r = job
        d = stages_json(args.tool, r["graph"], [
            "--max", str(r["stages"]), "-g", "serial", "--registers", str(r["m"]["n_regs"]),
            "--warps", str(r["m"]["num_warps"]), "--fit-max-latency", str(cap),
            "--fit-l2-bytes", str(l2)])
        return (cap, l2), r["tag"], d["stages"][-1]["sm_cycles"]
    jobs = [((c, l), r) for c in FIT_CAPS for l in FIT_L2 for r in results]
    out = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for key, tag, cycles in pool.map(one, jobs):
            out.setdefault(key, {})[tag] = cycles
    return out


def recommendations(args, results):
    """Per group: the recommendation with no flags and with the compiled kernel's."""
    out = {}
    groups = {}
    for r in results:
        groups.setdefault(r["group"], []).append(r)
    for key, rows in groups.items():
        first = rows[0]
        regs = max(r["m"]["n_regs"] for r in rows)
        plain = stages_json(args.tool, first["graph"], ["--max", str(MAX_STAGES)])
        given = stages_json(args.tool, first["graph"], ["--max", str(MAX_STAGES), "--registers",
                                                        str(regs), "--warps",
                                                        str(first["m"]["num_warps"])])
        out[key] = {"plain": plain, "given": given, "rows": rows, "registers": regs}
    return out


def print_table(results):
    print(f"{'configuration':50s} {'S':>2s} {'II':>4s} {'pred':>6s} {'meas':>6s} {'err':>7s} "
          f"{'pred us':>8s} {'meas us':>8s} {'smem pred':>9s} {'compiled':>9s} {'err':>6s} "
          f"{'bound':>13s}  stages differing from Triton's (ours/Triton)")
    for r in results:
        m = r["m"]
        smem_err = r["pred"]["smem_bytes"] / m["shared_bytes"] - 1
        err = r["predicted_ratio"] / r["measured_ratio"] - 1
        diff = f"{len(r['diff'])}/{r['ops']}" + (": " + ", ".join(r["diff"][:3]) if r["diff"] else "")
        if len(r["diff"]) > 3:
            diff += ", ..."
        print(f"{r['tag']:50s} {r['stages']:2d} {r['ii'] if r['ii'] is not None else '-':>4} "
              f"{r['predicted_ratio']:6.3f} {r['measured_ratio']:6.3f} {err:+7.1%} "
              f"{r['pred']['kernel_us'] or 0:8.0f} {m['ms'] * 1000:8.0f} "
              f"{r['pred']['smem_bytes']:9d} {m['shared_bytes']:9d} {smem_err:+6.2%} "
              f"{r['pred']['bound']:>13s}  {diff}")


def leave_one_kernel_out(results, fits):
    """Per kernel: the constants fitted on the others, its errors with them."""
    kernels = sorted({r["kernel"] for r in results})
    out = []
    for held in kernels:
        train = [r for r in results if r["kernel"] != held]
        test = [r for r in results if r["kernel"] == held]
        key = best_fit(train, fits)
        errs = errors(ratios(test, fits[key]))
        out.append((held, key, errs))
    return out


def report(results, recs, fits, loko):
    errs = errors(results)
    med, worst = summary(errs)
    smem = max(abs(r["pred"]["smem_bytes"] / r["m"]["shared_bytes"] - 1) for r in results)
    print("\nfitted constants (scored on all configurations: largest error, then median):")
    key = best_fit(results, fits)
    print(f"  best over {FIT_CAPS[0]}..{FIT_CAPS[-1]} x {FIT_L2[0]}..{FIT_L2[-1]}: "
          f"kMaxLoadedMemoryLatency {key[0]} cycles, kL2BytesPerCycle {key[1]} bytes/cycle/SM")
    shipped = (results[0]["fit"]["max_loaded_memory_latency"], results[0]["fit"]["l2_bytes_per_cycle"])
    def line(label, axis, fit_of):
        cells = []
        for x in axis:
            m, w = summary(errors(ratios(results, fits[fit_of(x)])))
            cells.append(f"{x}: {w:.1%}/{m:.1%}")
        print(f"  {label}: largest/median error: " + ", ".join(cells))
    for l2 in sorted({shipped[1], key[1]}):
        line(f"l2 {l2}, cap", FIT_CAPS, lambda cap: (cap, l2))
    for cap in sorted({shipped[0], key[0]}):
        line(f"cap {cap}, l2", FIT_L2, lambda l2: (cap, l2))
    print(f"  shipped: cap {shipped[0]}, l2 {shipped[1]}")
    print("\nleave-one-kernel-out (fitted on the other three kernels, predicting this one):")
    loko_errs = []
    for held, (cap, l2), e in loko:
        m, w = summary(e)
        loko_errs += e
        print(f"  {held:14s} fit cap {cap} l2 {l2}: median {m:.1%}, largest {w:.1%} over {len(e)}")
    lm, lw = summary(loko_errs)
    print()
    rec_ok, same_ok, uncapped_ok = True, True, True
    for key, rec in recs.items():
        rows, plain, given = rec["rows"], rec["plain"], rec["given"]
        s = plain["recommended"]
        holds, at = recommendation_holds(rows, s)
        rec_ok &= holds
        same = s == given["recommended"]
        same_ok &= same
        curve = " ".join(f"S{x['s']}={x['relative_time']:.3f}" if x["relative_time"] else
                         f"S{x['s']}=-" for x in plain["stages"])
        print(f"recommended {group_label(key)}: num_stages {s} with no flags ({plain['warps']} warps "
              f"from the {plain['warps_from']}, {plain['registers']} registers estimated), "
              f"{given['recommended']} with the compiled {rec['registers']} registers; measured "
              f"{at}; predicted {curve}")
        uncapped = rows[0]["uncapped_stage_count"]
        u_ok = uncapped == s or (uncapped is not None and recommendation_holds(rows, uncapped)[0])
        uncapped_ok &= u_ok
        print(f"  cost-based's uncapped schedule: {uncapped} stages"
              f"{'' if u_ok else ' (not the recommendation, nor within its spread)'}")
    problems = [p for r in results for p in r["problems"]]
    verdict = lambda ok: "holds" if ok else "FAILS"
    print()
    print(f"target: {len(results)} configurations import, every generator's schedule verifies and "
          f"stays within the cap: {verdict(not problems)}" +
          ("" if not problems else f" ({len(problems)} problems: {problems[0]})"))
    print(f"target: median |predicted/measured - 1| = {med:.1%} over {len(errs)} configurations, "
          f"<= {SHARED_MEDIAN:.0%}: {verdict(med <= SHARED_MEDIAN)}")
    print(f"target: largest |predicted/measured - 1| = {worst:.1%}, <= {SHARED_EVERY:.0%}: "
          f"{verdict(worst <= SHARED_EVERY)}")
    print(f"target: predicted shared memory within {SMEM_TARGET:.0%} (largest error {smem:.2%}): "
          f"{verdict(smem <= SMEM_TARGET)}")
    print(f"target: leave-one-kernel-out median {lm:.1%} <= {MEDIAN_TARGET:.0%}: "
          f"{verdict(lm <= MEDIAN_TARGET)}; largest {lw:.1%} <= {EVERY_TARGET:.0%}: "
          f"{verdict(lw <= EVERY_TARGET)}")
    print(f"target: every group's recommended num_stages within {RECOMMEND_TARGET:.0%} of its best "
          f"or within its spread: {verdict(rec_ok)}")
    print(f"target: the recommendation with no flags is the one with the compiled registers and "
          f"warps: {verdict(same_ok)}")
    print(f"target: cost-based's uncapped stage count is the recommendation (or within its spread): "
          f"{verdict(uncapped_ok)}")
    return not problems


def main():
    p = argparse.ArgumentParser()
    for opt in ("--tool", "--kernels", "--out", "--work"):
        p.add_argument(opt, required=True)
    p.add_argument("--exact-limit", type=int, default=5)
    args = p.parse_args()
    truth = os.path.join(args.kernels, "retimed.json")
    if not os.path.isfile(truth):
        truth = os.path.join(args.kernels, "measured.json")
    print(f"ground truth: {truth}")
    measured_list = json.load(open(truth))["results"]
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(lambda m: check_config(args, m), measured_list))
        fits = fit_predictions(args, results)
        recs = recommendations(args, results)
    except RuntimeError as e:
        print(f"fidelity: {e}", file=sys.stderr)
        return 1
    results = ratios(results, {r["tag"]: r["pred"]["sm_cycles"] for r in results})
    print_table(results)
    ok = report(results, recs, fits, leave_one_kernel_out(results, fits))
    from fidelity_output import plot, write_csv
    write_csv(os.path.join(args.out, "fidelity.csv"), results)
    plot(args.out, results)
    print(f"\nwrote {os.path.join(args.out, 'fidelity.csv')} and fidelity.png / .svg")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
