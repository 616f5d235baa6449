"""The pure parts of scripts/fidelity: configuration groups, predicted and
measured ratios, which configurations count as errors, the fit of the
constants and whether a recommendation holds. No tool, no GPU: tested by
scripts/fidelity_test.py."""
import statistics

SHARED_MEDIAN = 0.05     # the shared kernels: predicted ratio within 5 % at the median
SHARED_EVERY = 0.12      # ... and 12 % on every configuration
MEDIAN_TARGET = 0.10     # leave-one-kernel-out: median error
EVERY_TARGET = 0.20      # leave-one-kernel-out: every configuration
RECOMMEND_TARGET = 0.03  # the recommended num_stages within 3 % of the group's best
SMEM_TARGET = 0.05       # predicted shared memory within 5 %

# The launch of each shared kernel (kernels.py): matmuls on 8192^3, a CTA per
# BMxBN tile looping over K; attention on 64 heads x 4096 x HEAD, a CTA per
# BM rows of a head looping over the keys.
SHAPES = {
    "matmul": lambda c: ((8192 // c["BM"]) * (8192 // c["BN"]), 8192 // c["BK"]),
    "matmul_tma": lambda c: ((8192 // c["BM"]) * (8192 // c["BN"]), 8192 // c["BK"]),
    "attention": lambda c: ((4096 // c["BM"]) * 64, 4096 // c["BN"]),
    "attention_tma": lambda c: ((4096 // c["BM"]) * 64, 4096 // c["BN"]),
}


def kernel_shape(m):
    """(grid CTAs, loop iterations per CTA) of a configuration."""
    return SHAPES[m["kernel"]](m["config"])


def group_key(m):
    """The kernel and every configuration key but num_stages."""
    keys = {k: v for k, v in m["config"].items() if k != "STAGES"}
    keys.setdefault("num_warps", m["num_warps"])
    return (m["kernel"],) + tuple(sorted(keys.items()))


def group_label(key):
    return f"{key[0]} (" + " ".join(f"{k}{v}" for k, v in key[1:]) + ")"


def ratios(rows, cycles_by_tag):
    """Per group: each row's measured time and predicted cycles over the
    group's best; `best_both` marks the row that is both the measured and
    the predicted best (the one configuration errors leave out). Returns
    copies of the rows, in their order, with those fields."""
    best = {}
    for r in rows:
        ms, cycles = r["m"]["ms"], cycles_by_tag[r["tag"]]
        b = best.setdefault(r["group"], [ms, cycles or None])
        b[0] = min(b[0], ms)
        if cycles and (b[1] is None or cycles < b[1]):
            b[1] = cycles
    out = []
    for r in rows:
        best_ms, best_pred = best[r["group"]]
        cycles = cycles_by_tag[r["tag"]]
        c = dict(r)
        c["measured_ratio"] = r["m"]["ms"] / best_ms
        c["predicted_ratio"] = cycles / best_pred if cycles else float("inf")
        c["best_both"] = r["m"]["ms"] == best_ms and cycles == best_pred
        out.append(c)
    return out


def errors(rows):
    """|predicted / measured - 1| of every row but the one best both ways."""
    return [abs(r["predicted_ratio"] / r["measured_ratio"] - 1) for r in rows if not r["best_both"]]


def summary(errs):
    """(median, largest) of a list of errors; zeros when empty."""
    return (statistics.median(errs), max(errs)) if errs else (0.0, 0.0)


def best_fit(rows, fits):
    """The candidate constants whose predictions make the rows' largest
    error least, then their median; ties go to the first in sorted order."""
    def score(key):
        med, worst = summary(errors(ratios(rows, fits[key])))
        return (round(worst, 6), round(med, 6), key)
    return min(sorted(fits), key=score)


def recommendation_holds(rows, stages):
    """Whether the group's configuration at `stages` measures within
    RECOMMEND_TARGET of the group's best, or its spread (ms_min..ms_max)
    overlaps the best's; and a description of what it measured."""
    best = min(rows, key=lambda r: r["m"]["ms"])
    at = [r for r in rows if r["stages"] == stages]
    if not at:
        return False, f"S={stages} was not measured"
    m = at[0]["m"]
    ratio = m["ms"] / best["m"]["ms"]
    within = ratio <= 1 + RECOMMEND_TARGET
    overlap = m.get("ms_min", m["ms"]) <= best["m"].get("ms_max", best["m"]["ms"])
    how = "within 3 %" if within else ("spread overlaps the best's" if overlap else "too slow")
    return within or overlap, f"{ratio:.3f} of the best ({how})"

