#!/usr/bin/python3
"""Plots of a tilesched sweep CSV (docs/SWEEP.md).

usage: /usr/bin/python3 scripts/plot.py RESULTS.csv [MORE.csv ...] --out DIR

Several CSVs are plotted as one: their rows are pooled, a row whose key
(family, ops, seed, generator, arm_policy, graph, max_stages) an earlier
file has is counted once (a note says how many), and an exact row
(verified) of one file fills optimal_ii and proven of the rows of the same
graph (family, ops, seed, graph, graph_hash) under the same stage cap
(max_stages) in the others. That is how scripts/run gets the optimality
gap: the oracle runs in a sweep of its own with one worker (docs/SWEEP.md).
A file is refused as `tilesched compare` refuses it: not a sweep CSV, a
torn last line (no final line break), a row key twice in one file.

A generator is labelled with its arm policy and, for capped rows, its
stage cap ("ims max_stages=2"): capped and uncapped rows are never pooled.

Writes, as PNG and SVG each:
  ii_over_mii       distribution of II/MII per generator (box plot)
  serial_vs_cost    serial II against each heuristic's II per graph (log-log
                    scatter: cost-based per arm policy, ims, ...; hollow
                    markers, one shape per series, so coinciding points
                    show every series)
  stage_count       mean stage count against op count, per generator; sms
                    rows past LLVM's stage bound (more than 4 stages, the
                    flag over_llvm_stage_bound) on an axis of their own,
                    out of sms's mean
  time_vs_ops       generator CPU time (cpu_ns; time_ns in files before
                    version 5) against op count (log-log), with the
                    fitted slope of log(time) on log(ops) per generator:
                    the exponent k of time ~ ops^k (the title says so)
  optimality_gap    (II - optimal_ii) / optimal_ii per generator; only when
                    the exact oracle filled optimal_ii for some rows
  over_optimum      per family, mean II / proven optimum per generator (bars);
                    only when some rows have a proven optimum
Every plot draws a generator (with its arm policy) in the same colour and
marker, in every run (COLOURS below, cost-based-seed's included); a
generator not listed takes a spare colour chosen from its name, a capped
series (max_stages=S) a shade of its generator's colour set by S, and no
two series of a plot share a colour (nor, up to 15 series, a marker). Legends sit outside the axes, right of the data; the box
plots' legend explains their marks (box, median, mean, whiskers, outliers).
Needs Debian's python3-matplotlib and python3-pandas (run it with
/usr/bin/python3: a pyenv `python3` may not see them). Exit status: 0 done,
2 bad usage or input, 3 matplotlib/pandas missing.
"""
import argparse
import os
import sys

# Version 3 opens with the header; versions 1 and 2 with a version line
# (1 lacks stages_proven, 1 and 2 lack graph; read alike).
HEADER_START = "family,ops,"
OLD_VERSION_LINES = ("# tilesched.sweep/1", "# tilesched.sweep/2")

# One colour per generator configuration, the same in every plot and every
# run. A new generator is one line here.
COLOURS = {
    "serial": "#7f7f7f",                     # grey
    "cost-based/first-success": "#1f77b4",   # blue
    "cost-based/best-cost": "#17becf",       # cyan
    "cost-based-seed/first-success": "#ff7f0e",  # orange
    "cost-based-seed/best-cost": "#e377c2",  # pink
    "ims": "#2ca02c",                        # green
    "sms": "#9467bd",                        # purple
    "exact": "#d62728",                      # red
    "auto/first-success": "#bcbd22",         # olive
    "auto/best-cost": "#8c564b",             # brown
}
# A generator COLOURS does not list: a colour from its name (the same in
# every run), the next free one where two such names meet in one plot.
SPARE_COLOURS = ["#e6ab02", "#000080", "#66a61e", "#a6761d", "#e7298a", "#1b9e77",
                 "#7570b3", "#d95f02", "#666666", "#00ced1", "#8b0000", "#ff1493"]
# LLVM's MachinePipeliner emits at most this many stages
# (pipeliner-max-stages 3, counted from 0); an sms schedule past it is
# flagged over_llvm_stage_bound (tilesched/sms.h) and drawn apart.
LLVM_STAGE_BOUND = 4
# A capped series (max_stages=S) is its generator's colour, lightened or
# darkened by the cap: the caps of one generator stay related and apart.
CAP_SHADES = [-0.45, 0.45, -0.25, 0.65, -0.6, 0.25, -0.1, 0.8]


def die(msg, code=2):
    print(f"plot.py: {msg}", file=sys.stderr)
    sys.exit(code)


KEY = ["family", "ops", "seed", "generator", "arm_policy", "graph", "max_stages"]
GRAPH = ["family", "ops", "seed", "graph", "graph_hash", "max_stages"]


def label(row):
    """generator[/arm_policy][ max_stages=S]: capped rows are their own series."""
    text = row["generator"] + (f"/{row['arm_policy']}" if row["arm_policy"] else "")
    cap = str(row["max_stages"])
    return text + (f" max_stages={cap}" if cap not in ("", "0") else "")


def _stable_index(text, n):
    """An index in 0..n-1 from `text` alone (not Python's salted hash)."""
    import zlib
    return zlib.crc32(text.encode()) % n


def _shade(hex_colour, amount):
    """`hex_colour` mixed towards white (amount > 0) or black (amount < 0)."""
    rgb = [int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)]
    target = 255 if amount > 0 else 0
    mixed = [round(c + (target - c) * abs(amount)) for c in rgb]
    return "#" + "".join(f"{c:02x}" for c in mixed)


def split_label(l):
    """(generator/arm policy, cap or None) of a label from label()."""
    base, _, cap = l.partition(" max_stages=")
    return base, int(cap) if cap.isdigit() else None


def colours_for(labels):
    """Label -> colour, distinct within `labels` and the same for a label in
    every run: COLOURS, a spare colour from the name, a cap's shade of its
    generator's colour."""
    out, taken = {}, set()
    for l in sorted(labels, key=lambda l: (split_label(l)[1] is not None, l)):
        base, cap = split_label(l)
        colour = COLOURS.get(base)
        if colour is None:
            start = _stable_index(base, len(SPARE_COLOURS))
            free = [SPARE_COLOURS[(start + k) % len(SPARE_COLOURS)] for k in range(len(SPARE_COLOURS))]
            colour = next((c for c in free if c not in taken), free[0])
        if cap is not None:
            colour = _shade(colour, CAP_SHADES[(cap - 1) % len(CAP_SHADES)] *
                            (1.0 if cap <= len(CAP_SHADES) else 0.6))
        base_colour = colour
        for k in range(1, 40):  # two names on one spare, or a cap past the shades
            if colour not in taken:
                break
            colour = _shade(base_colour, min(0.9, 0.07 * k) * (1 if k % 2 else -1))
        out[l] = colour
        taken.add(colour)
    return out


def markers_for(labels):
    """Label -> marker, distinct within `labels` (up to len(MARKERS) series)
    and the same for a label whatever else is plotted: the generator's
    place in COLOURS (or its name's), shifted by its cap."""
    known = list(COLOURS)
    out, taken = {}, set()
    for l in sorted(labels, key=lambda l: (split_label(l)[1] is not None, l)):
        base, cap = split_label(l)
        start = known.index(base) if base in known else _stable_index(base, len(MARKERS))
        start = (start + 3 * (cap or 0)) % len(MARKERS)
        order = [MARKERS[(start + k) % len(MARKERS)] for k in range(len(MARKERS))]
        out[l] = next((m for m in order if m not in taken), order[0])
        taken.add(out[l])
    return out


def plain_number(v, _=None):
    """A tick label without an exponent: 0.5, 2, 50, 20,000, 10,000,000."""
    return f"{v:,.0f}" if v >= 1 else f"{v:g}"


def power_of_two_ticks(axis, ticker):
    """A log2 axis labelled 4, 8, 16, 32, ... (plain numbers, every power)."""
    axis.set_major_locator(ticker.LogLocator(base=2, numticks=30))
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_locator(ticker.NullLocator())


def readable_log_ticks(axis, ticker):
    """A log10 axis labelled with plain numbers, densely enough to read a
    point off it: 1, 2, 3, 4, 5, 6, 8, 10, ... within a decade and a half;
    1, 2, 3, 5, 10, 20, 30, 50, ... up to three decades; 1, 3, 10, 30, ...
    up to five; one label per decade beyond. Call it after plotting."""
    lo, hi = sorted(axis.get_view_interval())
    span = hi / lo if lo > 0 else float("inf")
    if span <= 10 ** 1.5:
        subs = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0)
    elif span <= 1e3:
        subs = (1.0, 2.0, 3.0, 5.0)
    elif span <= 1e5:
        subs = (1.0, 3.0)
    else:
        subs = (1.0,)
    axis.set_major_locator(ticker.LogLocator(base=10, subs=subs, numticks=30))
    axis.set_major_formatter(ticker.FuncFormatter(plain_number))
    axis.set_minor_locator(ticker.LogLocator(base=10, subs="auto", numticks=30))
    axis.set_minor_formatter(ticker.NullFormatter())


# Scatter markers, one shape per series and hollow, the first series drawn
# largest: a point where several series coincide shows every one of them
# (nested outlines) instead of only the one drawn last.
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">", "h", "p", "*", "d", "8", "H"]


def scatter_style(index, colour, marker):
    """Keyword arguments of ax.scatter for the index-th series of a plot."""
    return {"marker": marker, "s": max(10, 46 - 6 * index),
            "facecolors": "none", "edgecolors": colour, "linewidths": 1.0, "alpha": 0.8}


def outside_legend(ax, **kwargs):
    """The axes' legend to the right of the data, never over a point."""
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
              **kwargs)


def box_legend(ax, plt):
    """What a box plot's marks mean, as a legend outside the axes."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    handles = [Patch(facecolor="lightgrey", edgecolor="black", label="box: quartiles 1-3"),
               Line2D([], [], color="tab:orange", label="line: median"),
               Line2D([], [], marker="^", ls="none", color="tab:green", label="triangle: mean"),
               Line2D([], [], color="black", label="whiskers: 1.5 IQR"),
               Line2D([], [], marker="o", ls="none", mfc="none", color="black",
                      label="circles: outliers")]
    outside_legend(ax, handles=handles)


def save(fig, out, name, written):
    for ext in ("png", "svg"):
        path = os.path.join(out, f"{name}.{ext}")
        tmp = path + ".tmp"
        fig.savefig(tmp, format=ext, dpi=120, bbox_inches="tight")
        os.replace(tmp, path)  # atomic: never a half-written plot
        written.append(path)


def read_sweep(path, pd):
    """One sweep CSV of any version as a DataFrame (missing graph: "",
    missing max_stages: 0); refused, exit 2, as `tilesched compare` refuses
    it: not a sweep CSV, a torn last line, a row key twice."""
    try:
        with open(path, encoding="utf-8") as f:
            first = f.readline().rstrip("\r\n")
            f.seek(0)
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        die(f"{path}: {getattr(e, 'strerror', None) or e}")
    if first in OLD_VERSION_LINES:
        skip = 1
    elif first.startswith(HEADER_START):
        skip = 0
    else:
        die(f"{path}: line 1: not a sweep CSV (expected the header '{HEADER_START}...')")
    if not text.endswith("\n"):
        die(f"{path}: line {text.count(chr(10)) + 1}: torn last line (the file does not end "
            "with a line break)")
    try:
        df = pd.read_csv(path, skiprows=skip, dtype={"family": str, "generator": str,
                                                     "arm_policy": str, "reason": str,
                                                     "graph": str, "graph_hash": str},
                         keep_default_na=False, na_values={"ii": [""], "stage_count": [""],
                                                           "optimal_ii": [""]})
    except Exception as e:  # pandas raises many types for malformed files
        die(f"{path}: {e}")
    if "graph" not in df.columns:
        df["graph"] = ""  # versions 1 and 2: family rows only
    if "max_stages" not in df.columns:
        df["max_stages"] = 0  # versions 1 to 3: no stage cap
    df["max_stages"] = df["max_stages"].astype(str).replace("", "0")
    dup = df.duplicated(subset=KEY)
    if dup.any():
        i = int(dup.idxmax())
        r = df.loc[i]
        die(f"{path}: line {i + 2 + skip}: duplicate row key {key_text(r)}")
    return df


def key_text(r):
    """The row key as `tilesched compare` writes it."""
    k = "|".join(str(r[c]) for c in KEY[:5])
    k += f"|{r['graph']}" if r["graph"] else ""
    return k + (f"|max_stages={r['max_stages']}" if str(r["max_stages"]) != "0" else "")


def pool(frames, paths, pd):
    """The files' rows as one frame: a key an earlier file has is dropped
    (the same row, counted once), with a note."""
    df = pd.concat(frames, ignore_index=True)
    dup = df.duplicated(subset=KEY)
    if dup.any():
        print(f"plot.py: {int(dup.sum())} row(s) of {', '.join(paths[1:])} repeat a row key of "
              "an earlier file: counted once", file=sys.stderr)
        df = df[~dup].reset_index(drop=True)
    return df


def fill_optimal_across(df, pd):
    """optimal_ii and proven from a verified exact row of the same graph
    under the same stage cap, for the rows that lack them (their exact row
    was in another file)."""
    graph = GRAPH
    exact = df[(df["generator"] == "exact") & (df["verified"] == 1)]
    exact = exact[graph + ["ii", "proven"]].drop_duplicates(subset=graph)
    exact = exact.rename(columns={"ii": "_opt", "proven": "_proven"})
    out = df.merge(exact, on=graph, how="left")
    lacking = out["optimal_ii"].isna() & out["_opt"].notna()
    out.loc[lacking, "optimal_ii"] = out.loc[lacking, "_opt"]
    out["proven"] = out["proven"].astype(str)
    out.loc[lacking, "proven"] = out.loc[lacking, "_proven"].astype(str)
    return out.drop(columns=["_opt", "_proven"])


def main():
    ap = argparse.ArgumentParser(description="Plot a tilesched sweep CSV.")
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--out", required=True, help="directory for the PNG and SVG files")
    args = ap.parse_args()

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
        import numpy as np
        import pandas as pd
    except ImportError as e:
        die(f"needs python3-matplotlib and python3-pandas ({e}); run it with /usr/bin/python3", 3)
    matplotlib.rcParams["svg.fonttype"] = "none"  # SVG text stays text (searchable)

    frames = [read_sweep(path, pd) for path in args.csv]
    df = pool(frames, args.csv, pd) if len(frames) > 1 else frames[0]
    if len(frames) > 1:
        df = fill_optimal_across(df, pd)
    args.csv = ", ".join(args.csv)
    needed = ["family", "ops", "graph_ops", "seed", "generator", "arm_policy", "feasible",
              "verified", "ii", "mii", "stage_count", "time_ns", "optimal_ii", "proven"]
    # Speed figures read the generator's CPU time (docs/SWEEP.md); files
    # before version 5 have only the in-process wall time.
    time_col = "cpu_ns" if "cpu_ns" in df.columns else "time_ns"
    missing = [c for c in needed if c not in df.columns]
    if missing:
        die(f"{args.csv}: missing columns: {', '.join(missing)}")
    os.makedirs(args.out, exist_ok=True)
    df["label"] = df.apply(label, axis=1)
    ok = df[(df["feasible"] == 1) & (df["verified"] == 1)].copy()
    ok["ii_over_mii"] = ok["ii"] / ok["mii"]
    labels = sorted(ok["label"].unique())
    colour = colours_for(sorted(df["label"].unique()))
    marker = markers_for(sorted(df["label"].unique()))
    written = []

    # 1. II/MII distribution per generator.
    fig, ax = plt.subplots(figsize=(7, 4))
    data = [ok.loc[ok["label"] == l, "ii_over_mii"].values for l in labels]
    if labels:
        box = ax.boxplot(data, labels=labels, showmeans=True, patch_artist=True)
        for patch, l in zip(box["boxes"], labels):
            patch.set_facecolor(colour[l])
            patch.set_alpha(0.5)
    ax.set_ylabel("II / MII")
    ax.set_title(f"II over MII per generator ({len(ok)} verified rows)")
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right", fontsize=8)
    box_legend(ax, plt)
    fig.tight_layout()
    save(fig, args.out, "ii_over_mii", written)
    plt.close(fig)

    # 2. Serial vs every other heuristic's II per graph.
    fig, ax = plt.subplots(figsize=(5.5, 5))
    key = ["family", "ops", "seed", "graph", "max_stages"]  # serial under the same cap
    serial = ok[ok["generator"] == "serial"][key + ["ii"]].rename(columns={"ii": "serial_ii"})
    drawn = 0
    for l in labels:
        part = ok[(ok["label"] == l) & ~ok["generator"].isin(["serial", "exact"])]
        if part.empty:
            continue
        m = part.merge(serial, on=key)
        ax.scatter(m["serial_ii"], m["ii"], label=l, **scatter_style(drawn, colour[l], marker[l]))
        drawn += 1
    if len(serial):
        lo, hi = max(1, ok["ii"].min()), ok["ii"].max()
        ax.plot([lo, hi], [lo, hi], color="grey", lw=0.8, ls="--", label="equal II")
        ax.set_xscale("log")
        ax.set_yscale("log")
        readable_log_ticks(ax.xaxis, matplotlib.ticker)
        readable_log_ticks(ax.yaxis, matplotlib.ticker)
        outside_legend(ax)
    else:  # not empty axes: say why there is nothing to compare
        ax.text(0.5, 0.5, "no serial rows in this sweep:\nnothing to compare against",
                ha="center", va="center", transform=ax.transAxes)
        ax.set_xticks([])
        ax.set_yticks([])
    ax.set_xlabel("serial II")
    ax.set_ylabel("heuristic II")
    ax.set_title("Serial vs heuristic II (one point per graph)")
    save(fig, args.out, "serial_vs_cost", written)
    plt.close(fig)

    # 3. Stage counts against op count. SMS rows past LLVM's stage bound
    # (a schedule LLVM's pipeliner would not emit) are drawn apart, on an
    # axis of their own, and left out of SMS's mean.
    over = (ok["generator"] == "sms") & (ok["stage_count"] > LLVM_STAGE_BOUND)
    if over.any():
        fig, (ax, apart) = plt.subplots(1, 2, figsize=(9.5, 4), gridspec_kw={"width_ratios": [3, 1]})
    else:
        fig, ax = plt.subplots(figsize=(7, 4))
    for i, l in enumerate(labels):  # hollow markers, one shape each: coinciding series show
        part = ok[(ok["label"] == l) & ~over].groupby("ops")["stage_count"].mean()
        ax.plot(part.index, part.values, marker=marker[l], mfc="none",
                ms=max(4, 9 - i), label=l, color=colour[l])
    ax.set_xscale("log", base=2)
    power_of_two_ticks(ax.xaxis, matplotlib.ticker)
    ax.set_xlabel("ops")
    ax.set_ylabel("mean stage count")
    ax.set_title("Stage count per generator")
    if over.any():
        rows = ok[over]
        for l in sorted(rows["label"].unique()):
            part = rows[rows["label"] == l]
            apart.scatter(part["ops"], part["stage_count"], marker=marker[l], facecolors="none",
                          edgecolors=colour[l], label=f"{l} ({len(part)} rows)")
        apart.set_yscale("log")
        apart.set_xscale("log", base=2)
        power_of_two_ticks(apart.xaxis, matplotlib.ticker)
        readable_log_ticks(apart.yaxis, matplotlib.ticker)
        apart.set_xlabel("ops")
        apart.set_ylabel("stage count")
        apart.set_title(f"sms over LLVM's stage bound\n(> {LLVM_STAGE_BOUND} stages; not in its mean)",
                        fontsize=8)
        apart.legend(fontsize=7, loc="lower right")
    if labels and over.any():  # right of both panels
        outside_legend(ax, bbox_transform=apart.transAxes)
    elif labels:
        outside_legend(ax)
    save(fig, args.out, "stage_count", written)
    plt.close(fig)

    # 4. Time against op count, log-log, with the fitted slope.
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for l in labels:
        part = ok[(ok["label"] == l) & (ok[time_col] > 0)]
        if part.empty:
            continue
        x, y = part["graph_ops"].astype(float), part[time_col].astype(float) / 1e3
        text = l
        if x.nunique() >= 2:
            slope, icpt = np.polyfit(np.log10(x), np.log10(y), 1)
            xs = np.array([x.min(), x.max()])
            ax.plot(xs, 10 ** icpt * xs ** slope, lw=1, color=colour[l])
            text += f" (slope {slope:.2f})"
        ax.scatter(x, y, s=10, alpha=0.6, label=text, color=colour[l], marker=marker[l])
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    power_of_two_ticks(ax.xaxis, matplotlib.ticker)
    readable_log_ticks(ax.yaxis, matplotlib.ticker)
    ax.set_xlabel("ops")
    ax.set_ylabel("generator CPU time (µs, cpu_ns)" if time_col == "cpu_ns"
                  else "generator time (µs, time_ns; no cpu_ns column)")
    ax.set_title("Scheduling time against op count\n"
                 "slope k: the fitted exponent of time ~ ops^k (least squares on log time, log ops)",
                 fontsize=9)
    if labels:
        outside_legend(ax)
    save(fig, args.out, "time_vs_ops", written)
    plt.close(fig)

    # 5. Optimality gap, once the exact oracle fills optimal_ii.
    gap = ok[ok["optimal_ii"].notna() & (ok["generator"] != "exact")].copy()
    if len(gap):
        gap["gap"] = (gap["ii"] - gap["optimal_ii"]) / gap["optimal_ii"]
        glabels = sorted(gap["label"].unique())
        fig, ax = plt.subplots(figsize=(7, 4))
        box = ax.boxplot([gap.loc[gap["label"] == l, "gap"].values for l in glabels],
                         labels=glabels, showmeans=True, patch_artist=True)
        for patch, l in zip(box["boxes"], glabels):
            patch.set_facecolor(colour[l])
            patch.set_alpha(0.5)
        ax.set_ylabel("(II - optimal II) / optimal II")
        ax.set_title(f"Optimality gap ({len(gap)} rows with an exact figure)")
        plt.setp(ax.get_xticklabels(), rotation=30, ha="right", fontsize=8)
        box_legend(ax, plt)
        fig.tight_layout()
        save(fig, args.out, "optimality_gap", written)
        plt.close(fig)
    else:
        print("plot.py: no optimal_ii in the CSV (no exact rows): optimality_gap skipped",
              file=sys.stderr)

    # 6. Per family, mean II over the proven optimum, one bar per generator.
    proven = ok[ok["optimal_ii"].notna() & (ok["proven"].astype(str) == "1")].copy()
    if len(proven):
        proven["over"] = proven["ii"] / proven["optimal_ii"]
        families = sorted(proven["family"].unique())
        plabels = sorted(proven["label"].unique())
        width = 0.8 / max(1, len(plabels))
        fig, ax = plt.subplots(figsize=(max(7, 0.5 * len(families)), 4.5))
        for i, l in enumerate(plabels):
            means = proven[proven["label"] == l].groupby("family")["over"].mean()
            xs = [f + i * width for f in range(len(families))]
            ax.bar(xs, [means.get(f, np.nan) for f in families], width=width, label=l,
                   color=colour[l])
        ax.set_xticks([f + 0.4 - width / 2 for f in range(len(families))])
        ax.set_xticklabels(families, rotation=30, ha="right", fontsize=7)
        ax.axhline(1.0, color="grey", lw=0.8, ls="--")
        ax.set_ylabel("mean II / proven optimum")
        ax.set_title(f"II over the proven optimum per family ({len(proven)} rows)")
        outside_legend(ax)
        save(fig, args.out, "over_optimum", written)
        plt.close(fig)
    else:
        print("plot.py: no proven optimum in the CSV: over_optimum skipped", file=sys.stderr)

    for path in written:
        print(path)


if __name__ == "__main__":
    main()
