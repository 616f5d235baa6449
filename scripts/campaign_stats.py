"""The figures of a GPU campaign (scripts/triton_campaign.py): per kernel,
the Spearman rank correlation between predicted and measured time, the
spread between campaigns, and whether a schedule of ours beats Triton's
own beyond it; the markdown table for README's "Real kernels".

Rows are the campaign CSV's (campaign_runner.FIELDS), as dicts of strings.
Standard library only.
"""
import statistics


def ranks(values):
    """1-based ranks of `values`, ties given the mean of the ranks they span."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(xs, ys):
    """Spearman's rho of paired samples (Pearson's r of their ranks, ties
    averaged); None with fewer than 3 pairs or where either side is constant."""
    if len(xs) != len(ys) or len(xs) < 3:
        return None
    rx, ry = ranks(xs), ranks(ys)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return sxy / (sxx * syy) ** 0.5


def _number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def _measured(rows):
    """{(kernel, num_stages, kind, source): [row per campaign]} of the rows
    measured ok."""
    out = {}
    for r in rows:
        if r.get("status") == "ok" and _number(r.get("ms")) is not None:
            key = (r["kernel"], r["num_stages"], r["kind"], r["source"])
            out.setdefault(key, []).append(r)
    return out


def summarize(rows):
    """Per kernel (in the order first seen): the candidates measured, the
    wrong results, Spearman's rho of predicted cycles against measured ms
    (each the mean over campaigns), the spread, and the best candidate."""
    kernels = list(dict.fromkeys(r["kernel"] for r in rows))
    campaigns = sorted({r.get("campaign", "1") for r in rows})
    measured = _measured(rows)
    out = []
    for kernel in kernels:
        mine = {k: v for k, v in measured.items() if k[0] == kernel}
        cands = {k: v for k, v in mine.items() if k[2] == "candidate"}
        pred, ms = [], []
        for key, rs in cands.items():
            p = _number(rs[0].get("predicted_cycles"))
            if p is not None:
                pred.append(p)
                ms.append(statistics.fmean(float(r["ms"]) for r in rs))
        spread, spread_from = _spread(mine, len(campaigns))
        best = _best(cands)
        wrong = sum(1 for r in rows if r["kernel"] == kernel and r.get("status") == "wrong-result")
        failed = sum(1 for r in rows if r["kernel"] == kernel and r.get("status") not in
                     ("ok", "wrong-result") and not r.get("status", "").startswith(("not-run",
                                                                                     "refused")))
        beats = best is not None and spread is not None and best[1] < 1.0 - spread
        out.append({"kernel": kernel, "configs": len({k[1] for k in mine}),
                    "candidates": len(cands), "wrong": wrong, "failed": failed,
                    "rho": spearman(pred, ms), "pairs": len(pred), "spread": spread,
                    "spread_from": spread_from, "best": best, "beats": beats,
                    "campaigns": len(campaigns)})
    return out


def _spread(mine, campaigns):
    """The largest difference between two campaigns' ratios to Triton's own
    of any row of the kernel measured in both; with one campaign, the
    largest |ratio - 1| of its control rows (Triton's own against itself)."""
    if campaigns >= 2:
        diffs = []
        for rs in mine.values():
            rel = [_number(r.get("rel_to_triton")) for r in rs]
            rel = [x for x in rel if x is not None]
            if len(rel) >= 2:
                diffs.append(max(rel) - min(rel))
        return (max(diffs), "campaigns") if diffs else (None, "campaigns")
    ctl = [abs(_number(r.get("rel_to_triton")) - 1.0) for k, rs in mine.items()
           if k[2] == "control" for r in rs if _number(r.get("rel_to_triton")) is not None]
    return (max(ctl), "control") if ctl else (None, "control")


def _best(cands):
    """(label, worst-campaign ratio to Triton's own) of the candidate whose
    worst campaign is fastest, other than Triton's own schedule."""
    best = None
    for (kernel, s, kind, source), rs in cands.items():
        if "triton" in rs[0].get("found_by", "").split(","):
            continue
        rel = [_number(r.get("rel_to_triton")) for r in rs]
        if any(x is None for x in rel):
            continue
        worst = max(rel)
        if best is None or worst < best[1]:
            best = (f"{source} at S={s}", worst)
    return best


def _fmt(x, digits=3):
    return "—" if x is None else f"{x:.{digits}f}"


def markdown(summary):
    """The table for README's "Real kernels", one line per kernel."""
    lines = ["| kernel | configs | candidates timed | wrong results | failures | Spearman ρ "
             "(pairs) | spread | best of ours / Triton's own | beats Triton's own beyond "
             "the spread |",
             "|---|---:|---:|---:|---:|---|---|---|---|"]
    for k in summary:
        best = "—" if k["best"] is None else f"{_fmt(k['best'][1])} ({k['best'][0]})"
        spread = "—" if k["spread"] is None else f"{_fmt(k['spread'])} ({k['spread_from']})"
        verdict = "yes" if k["beats"] else ("no" if k["spread"] is not None else "not known")
        lines.append(f"| {k['kernel']} | {k['configs']} | {k['candidates']} | {k['wrong']} | "
                     f"{k['failed']} | {_fmt(k['rho'], 2)} ({k['pairs']}) | {spread} | {best} | "
                     f"{verdict} |")
    return "\n".join(lines) + "\n"
