"""The figures of scripts/cost_based_speed from its sweeps.

usage: cost_based_speed.py DIR SETS
DIR holds SET-fast.csv, SET-default.csv, SET-full.csv and SET-ims.csv for
each SET of the comma-separated SETS. Prints one line per figure: the
figure, its target, and whether it holds. Exit status: 0 done, 1 a row did
not verify, 2 bad usage or missing input.
"""
import os
import sys

import pandas as pd

KEY = ["family", "ops", "seed", "graph", "max_stages"]


def load(path):
    d = pd.read_csv(path)
    for k in KEY:
        if k not in d:
            d[k] = 0
    d["family"] = d["family"].fillna("-")
    d["graph"] = d["graph"].fillna("-")
    d["max_stages"] = d["max_stages"].fillna(0).astype(int)
    return d


def keep_caps(d):
    """The Triton rows: uncapped, and capped at 1..num_stages (the stage
    count in the file name) only."""
    stages = d["graph"].str.extract(r"STAGES(\d+)")[0].fillna(99).astype(int)
    return d[(d["max_stages"] == 0) | (d["max_stages"] <= stages)]


def line(name, figure, target, holds):
    print(f"{name}: {figure}, target {target}: {'holds' if holds else 'DOES NOT HOLD'}")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    out, sets = sys.argv[1], sys.argv[2].split(",")
    status = 0
    band = []
    for s in sets:
        paths = {e: os.path.join(out, f"{s}-{e}.csv") for e in ("fast", "default", "full", "ims")}
        if not all(os.path.exists(p) for p in paths.values()):
            print(f"cost_based_speed: {s}: a sweep is missing in {out}", file=sys.stderr)
            return 2
        runs = {e: load(p) for e, p in paths.items()}
        if s == "triton":
            runs = {e: keep_caps(d) for e, d in runs.items()}
        for e, d in runs.items():
            bad = d[d["verified"] != 1]
            if len(bad):
                print(f"{s} {e}: {len(bad)} row(s) do not verify", file=sys.stderr)
                status = 1
        ims = runs["ims"][KEY + ["ii", "cpu_ns"]].rename(columns={"ii": "ims_ii", "cpu_ns": "ims_ns"})
        m = {e: runs[e].merge(ims, on=KEY) for e in ("fast", "default", "full")}
        n = len(m["default"])
        d = m["default"]
        slow = d[d["cpu_ns"] > d["ims_ns"].clip(lower=0).mul(10).clip(lower=5e6)]
        line(f"{s} default", f"{n - len(slow)}/{n} rows within max(5 ms, 10x IMS)"
             f" (worst {d['cpu_ns'].max() / 1e6:.2f} ms)", "every row", len(slow) == 0)
        f = m["fast"]
        slow_f = f[f["cpu_ns"] > f["ims_ns"].mul(3).clip(lower=1e6)]
        line(f"{s} fast", f"{len(f) - len(slow_f)}/{len(f)} rows within max(1 ms, 3x IMS)",
             "every row", len(slow_f) == 0)
        p90, ims90 = d["cpu_ns"].quantile(0.9), d["ims_ns"].quantile(0.9)
        line(f"{s} default", f"p90 {p90 / 1e6:.3f} ms = {p90 / max(ims90, 1):.1f}x IMS's p90"
             f" {ims90 / 1e6:.3f} ms", "<= 3x", p90 <= 3 * ims90)
        above = sum(int((x["ii"] > x["ims_ii"]).sum()) for x in m.values())
        line(f"{s}", f"{above} rows above IMS's II (every effort)", "0", above == 0)
        mono = m["fast"][KEY + ["ii"]].merge(m["default"][KEY + ["ii"]], on=KEY,
                                              suffixes=("_fast", "_default"))
        mono = mono.merge(m["full"][KEY + ["ii"]].rename(columns={"ii": "ii_full"}), on=KEY)
        worse = int(((mono["ii_full"] > mono["ii_default"]) |
                     (mono["ii_default"] > mono["ii_fast"])).sum())
        line(f"{s}", f"{worse} loops where more effort gives a worse II", "0", worse == 0)
        if s == "triton":
            over = d[d["cpu_ns"] > 5e6]
            line("triton default", f"{n - len(over)}/{n} configurations within 5 ms", "every one",
                 len(over) == 0)
        if s == "random_layered":
            big = d[d["ops"] == 1024]
            if len(big):
                line("random_layered 1024 default", f"worst {big['cpu_ns'].max() / 1e6:.1f} ms",
                     "<= 50 ms", big["cpu_ns"].max() <= 50e6)
        if "cb_work_total" in d:
            w = d[d["cb_work_total"] > 0]
            band.extend((w["cpu_ns"] / w["cb_work_total"]).tolist())
    if band:
        b = pd.Series(band)
        lo, hi = b.quantile(0.05), b.quantile(0.95)
        line("all sets default", f"cpu_ns per work unit p5 {lo:.1f}, p95 {hi:.1f}: a {hi / lo:.1f}x band",
             "<= 4x", hi <= 4 * lo)
    return status


if __name__ == "__main__":
    sys.exit(main())
