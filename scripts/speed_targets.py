#!/usr/bin/env python3
"""Issue 27's speed targets from the sweeps scripts/speed_targets wrote.

usage: speed_targets.py DIR --structured A,B,... [--default-ms MS]

DIR holds any of hls.csv, small.csv, examples.csv, layered.csv and
large.csv (tilesched sweep CSVs of version 5: the figures read cpu_ns, the
generator call's thread CPU time). Prints one line per target: the figure,
the target and `holds` / `MISSED`; a target whose rows are absent prints
`not measured`. Exit status: 0, 1 when a row did not verify, 2 when DIR or
a file cannot be read.
"""
import argparse
import csv
import math
import os
import statistics
import sys

MS = 1e6  # ns per ms


def read_rows(path):
    """The rows of one sweep CSV (version 5), or [] when it is absent."""
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if rows and "cpu_ns" not in rows[0]:
        print(f"speed_targets: {path}: no cpu_ns column (a sweep CSV of version 5 is needed)",
              file=sys.stderr)
        sys.exit(2)
    return rows


def label(r):
    """A row's graph, for naming the slowest one."""
    name = r["graph"] or f'{r["family"]}/{r["ops"]}/s{r["seed"]}'
    return f'{name} ({r["graph_ops"]} ops)'


def cpu_ms(r):
    return int(r["cpu_ns"]) / MS


def policy(rows, p, generator="cost-based"):
    return [r for r in rows if r["generator"] == generator and r["arm_policy"] == p]


def percentile(values, q):
    """The q-quantile by the nearest-rank rule (q = 0.9: the value 90 % of
    the sample is at or below)."""
    s = sorted(values)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def slope(rows):
    """Least-squares slope of log(cpu time) against log(ops)."""
    pts = [(math.log(int(r["graph_ops"])), math.log(max(int(r["cpu_ns"]), 1))) for r in rows]
    if len(pts) < 2:
        return None
    mx = statistics.fmean(x for x, _ in pts)
    my = statistics.fmean(y for _, y in pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sxx if sxx > 0 else None


class Report:
    def __init__(self):
        self.missed = 0

    def line(self, what, figure, target, holds):
        if figure is None:
            print(f"  {what}: not measured (target {target})")
            return
        mark = "holds" if holds else "MISSED"
        self.missed += 0 if holds else 1
        print(f"  {what}: {figure} (target {target}) {mark}")

    def worst(self, what, rows, limit_ms):
        """The largest cpu time of `rows` against a limit, naming its graph."""
        if not rows:
            return self.line(what, None, f"<= {limit_ms:g} ms", False)
        w = max(rows, key=cpu_ms)
        self.line(what, f"max {cpu_ms(w):.3f} ms, {label(w)}", f"<= {limit_ms:g} ms",
                  cpu_ms(w) <= limit_ms)


def hls_targets(rep, hls):
    fs = [cpu_ms(r) for r in policy(hls, "first-success")]
    bc = [cpu_ms(r) for r in policy(hls, "best-cost")]
    print(f"HLS set ({len(fs)} loops, cost-based):")
    if not fs:
        return rep.line("first-success", None, "median 0.1 / p90 1 / max 20 ms", False)
    rep.line("first-success median", f"{statistics.median(fs):.3f} ms", "<= 0.1 ms",
             statistics.median(fs) <= 0.1)
    rep.line("first-success p90", f"{percentile(fs, 0.9):.3f} ms", "<= 1 ms",
             percentile(fs, 0.9) <= 1)
    rep.worst("first-success", policy(hls, "first-success"), 20)
    rep.worst("best-cost", policy(hls, "best-cost"), 60)


def ratio_line(rep, what, rows):
    fs = [cpu_ms(r) for r in policy(rows, "first-success")]
    bc = [cpu_ms(r) for r in policy(rows, "best-cost")]
    if not fs or not bc:
        return rep.line(what, None, "<= 3x", False)
    ratio = statistics.median(bc) / max(statistics.median(fs), 1e-9)
    rep.line(what, f"x{ratio:.2f} (medians {statistics.median(bc):.3f} / "
             f"{statistics.median(fs):.3f} ms)", "<= 3x", ratio <= 3)


def layered_targets(rep, layered, large):
    print("random layered (seeds 1-3):")
    at = lambda rows, n: [r for r in rows if int(r["ops"]) == n]
    rep.worst("cost-based first-success at 256 ops", at(policy(layered, "first-success"), 256), 5)
    rep.worst("cost-based first-success at 1024 ops", at(policy(layered, "first-success"), 1024), 100)
    ratio_line(rep, "best-cost / first-success at 256 ops", at(layered, 256))
    for gen in ("sms", "ims"):
        rep.worst(f"{gen} at 1024 ops", at(policy(layered, "", gen), 1024), 100)
    for p, limit in (("first-success", 1.5), ("best-cost", 2)):
        s = slope([r for r in policy(layered, p) if 64 <= int(r["ops"]) <= 1024])
        rep.line(f"{p} slope of log time on log ops, 64-1024", None if s is None else f"{s:.2f}",
                 f"<= {limit}", s is not None and s <= limit)
    if large:
        print("  (1500 ops: " + ", ".join(
            f'{r["arm_policy"]} s{r["seed"]} {cpu_ms(r):.1f} ms' for r in large) + ")")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--structured", default="", help="the structured families, comma-separated")
    ap.add_argument("--default-ms", type=int, help="the default preset's wall time")
    a = ap.parse_args()
    if not os.path.isdir(a.dir):
        print(f"speed_targets: {a.dir}: not a directory", file=sys.stderr)
        return 2
    sets = {n: read_rows(os.path.join(a.dir, n + ".csv"))
            for n in ("hls", "small", "examples", "layered", "large")}
    every = [r for rows in sets.values() for r in rows]
    unverified = [r for r in every if r["verified"] != "1"]
    for r in unverified[:10]:
        print(f"NOT VERIFIED: {label(r)} {r['generator']} {r['arm_policy']}: {r['reason']}")
    rep = Report()
    hls_targets(rep, sets["hls"])
    print("graphs of <= 64 ops (families at 8-64 ops seeds 1-5, examples, HLS):")
    small = [r for r in every if int(r["graph_ops"]) <= 64]
    rep.worst("cost-based first-success", policy(small, "first-success"), 5)
    structured = set(filter(None, a.structured.split(",")))
    ratio_line(rep, "best-cost / first-success over the structured families",
               [r for r in sets["small"] if r["family"] in structured])
    print("loops of up to 1,500 ops (every row above):")
    upto = [r for r in every if int(r["graph_ops"]) <= 1500]
    rep.worst("cost-based first-success", policy(upto, "first-success"), 500)
    rep.worst("cost-based best-cost", policy(upto, "best-cost"), 1500)
    layered_targets(rep, sets["layered"], sets["large"])
    print("the default sweep preset (--jobs 2, wall clock):")
    secs = None if a.default_ms is None else a.default_ms / 1000
    rep.line("whole sweep", None if secs is None else f"{secs:.0f} s", "about 180 s",
             secs is not None and secs <= 210)
    print(f"targets missed: {rep.missed}")
    return 1 if unverified else 0


if __name__ == "__main__":
    sys.exit(main())
