#!/usr/bin/python3
"""Pictures of one modulo schedule (docs/DRAW.md).

usage: /usr/bin/python3 scripts/draw.py GRAPH.loop.json SCHEDULE.json --out DIR
                                        [--format svg|png] [--tilesched BIN]
                                        [--explain EXPLAIN.json]

Writes NAME.gantt, NAME.mrt and NAME.steady (NAME: the graph file's name
without .loop.json) in the chosen format (default svg):
  gantt   one iteration: ops against cycles, coloured by stage, one lane per
          agent when the schedule's ops carry "agent", dependence edges as
          arrows, the critical recurrence's edges in red; with --explain
          (`tilesched explain GRAPH SCHEDULE --json`, docs/EXPLAIN.md) what
          keeps the II from being lower instead: its ops outlined in red,
          its edges in red, its slots and pools named in the legend
  mrt     the modulo reservation table: II rows, one column per slot or rate
          pool some op uses, each cell's occupancy against its capacity,
          cells at capacity marked
  steady  the steady state: max(3, stage count) iterations started II apart,
          prologue, kernel and epilogue windows marked
The machine model (slots, pools, every op's resource vector with its kind's
defaults applied) comes from the engine, `tilesched export --resolved GRAPH`:
BIN is --tilesched, else $TILESCHED, else build/release/cli/tilesched of this
checkout, else `tilesched` on PATH. Output is deterministic (fixed style,
SVG hash salt and metadata). Needs Debian's python3-matplotlib (run it with
/usr/bin/python3). Exit status: 0 done, 2 bad usage or input (including a
schedule with no legal II), 3 matplotlib missing.
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_CRITICAL_OPS = 600  # above this the O(n^3) recurrence search is skipped
ANNOTATE_MAX_CELLS = 800  # MRT cells with text only below this many
STEADY_NAMED_BARS = 240  # steady-state bars named in every iteration up to this many


def die(msg, code=2):
    print(f"draw.py: {msg}", file=sys.stderr)
    sys.exit(code)


def find_tilesched(given):
    for cand in (given, os.environ.get("TILESCHED"),
                 os.path.join(ROOT, "build", "release", "cli", "tilesched")):
        if cand:
            if os.access(cand, os.X_OK):
                return cand
            if cand is given:
                die(f"--tilesched {given}: not an executable")
    found = shutil.which("tilesched")
    if not found:
        die("no tilesched binary: build it (cmake --build --preset release) or pass --tilesched")
    return found


def load_graph(binary, path):
    r = subprocess.run([binary, "export", path, "--resolved"], capture_output=True, text=True)
    if r.returncode != 0:
        die(r.stderr.strip() or f"tilesched export exited {r.returncode}")
    g = json.loads(r.stdout)
    g["index"] = {op["id"]: i for i, op in enumerate(g["ops"])}
    return g


def read_json(path):
    """The JSON document in `path`, or exit 2 with one line."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        die(f"{path}: {e.strerror}")
    except ValueError as e:
        die(f"{path}: invalid JSON: {e}")


def load_schedule(path, g):
    s = read_json(path)
    if not isinstance(s, dict) or s.get("format") != "tilesched.schedule/1":
        die(f"{path}: $.format: not a tilesched.schedule/1 document")
    if "graph" in s and s["graph"] != g.get("name", "graph"):
        die(f"{path}: $.graph: the schedule is of graph {json.dumps(s['graph'])}, "
            f"not of {json.dumps(g.get('name', 'graph'))}")
    if not s.get("feasible", True):
        die(f"{path}: records no legal schedule (feasible: false)")
    ii = s.get("ii")
    if not isinstance(ii, int) or ii < 1:
        die(f"{path}: $.ii: expected a positive integer")
    n = len(g["ops"])
    start, stage, agent = [None] * n, [0] * n, [None] * n
    for k, op in enumerate(s.get("ops", [])):
        v = g["index"].get(op.get("id"))
        if v is None:
            die(f"{path}: $.ops[{k}].id: not an op of the graph")
        if start[v] is not None:
            die(f"{path}: $.ops[{k}].id: op listed twice")
        t = op.get("start")
        if not isinstance(t, int) or t < 0:
            die(f"{path}: $.ops[{k}].start: expected a non-negative integer")
        start[v] = t
        stage[v] = op.get("stage", t // ii)
        if not isinstance(stage[v], int) or stage[v] < 0:
            die(f"{path}: $.ops[{k}].stage: expected a non-negative integer")
        agent[v] = op.get("agent")
        if agent[v] is not None and not isinstance(agent[v], str):
            die(f"{path}: $.ops[{k}].agent: expected a string")
    missing = [g["ops"][v]["id"] for v in range(n) if start[v] is None]
    if missing:
        die(f"{path}: $.ops: missing op {missing[0]!r}")
    return {"ii": ii, "start": start, "stage": stage, "agent": agent,
            "stage_count": 1 + max(stage), "generator": s.get("generator", ""),
            "mii": (s.get("mii") or {}).get("max")}


def load_explanation(path, g, s):
    """The tilesched.explain/1 document of the same graph and II."""
    why = read_json(path)
    if not isinstance(why, dict) or why.get("format") != "tilesched.explain/1":
        die(f"{path}: $.format: not a tilesched.explain/1 document")
    if why.get("graph") != g.get("name", "graph"):
        die(f"{path}: $.graph: the explanation is of graph {json.dumps(why.get('graph'))}, "
            f"not of {json.dumps(g.get('name', 'graph'))}")
    if why.get("ii") != s["ii"]:
        die(f"{path}: $.ii: the explanation is of II {why.get('ii')}, the schedule's is {s['ii']}")
    ops = set()
    for k, name in enumerate(why.get("ops", [])):
        if name not in g["index"]:
            die(f"{path}: $.ops[{k}]: not an op of the graph")
        ops.add(g["index"][name])
    edges = set()
    for k, e in enumerate(why.get("edges", [])):
        i = e.get("index") if isinstance(e, dict) else None
        if not isinstance(i, int) or not 0 <= i < len(g["edges"]):
            die(f"{path}: $.edges[{k}].index: not an edge of the graph")
        edges.add(i)
    label = f"why not II {s['ii'] - 1}: {why.get('verdict')}"
    if why.get("bound"):
        label += f" ({why['bound']} bound)"
    if why.get("resources"):
        label += "; " + ", ".join(why["resources"])
    return {"ops": ops, "edges": edges, "label": label, "summary": why.get("summary", "")}


def critical_recurrence(g, ii):
    """The dependence cycle with the least slack at II, slack = II*sum(delta) -
    sum(lambda) (the cycle the schedule meets most tightly; it binds the II
    when the slack is 0). Ties: a cycle with a loop-carried edge first, then
    the larger latency sum. Returns (edge indices, sum lambda, sum delta) or
    None when the graph has no cycle or is too large to search."""
    import numpy as np
    n, edges = len(g["ops"]), g["edges"]
    if n > MAX_CRITICAL_OPS or not edges:
        return None
    neg = -(1 << 60)
    d = np.full((n, n), neg, dtype=np.int64)
    best_edge = {}
    for k, e in enumerate(edges):
        u, v = g["index"][e["from"]], g["index"][e["to"]]
        w = e["latency"] - ii * e["distance"]
        if w > d[u, v] or (u, v) not in best_edge:
            d[u, v], best_edge[(u, v)] = w, k
    nxt = np.tile(np.arange(n, dtype=np.int64), (n, 1))  # nxt[i, j]: step after i towards j
    for k in range(n):
        cand = d[:, k, None] + d[None, k, :]
        better = (cand > d) & (d[:, k, None] > neg // 2) & (d[None, k, :] > neg // 2)
        d = np.where(better, cand, d)
        nxt = np.where(better, nxt[:, k, None], nxt)
    best = None
    for i in range(n):
        if d[i, i] <= neg // 2:
            continue
        walk, cur, seen = [i], i, {i: 0}
        for _ in range(n + 1):
            cur = int(nxt[cur, i])
            if cur == i or cur in seen:
                break
            seen[cur] = len(walk)
            walk.append(cur)
        cycle = walk if cur == i else walk[seen[cur]:]
        ring = [best_edge[(cycle[j], cycle[(j + 1) % len(cycle)])] for j in range(len(cycle))]
        lam = sum(edges[k]["latency"] for k in ring)
        dist = sum(edges[k]["distance"] for k in ring)
        key = (lam - ii * dist, dist > 0, lam, -min(cycle))
        if best is None or key > best[0]:
            best = (key, ring, lam, dist)
    return None if best is None else best[1:]


def style(matplotlib):
    matplotlib.rcdefaults()
    matplotlib.rcParams.update({
        "font.family": "DejaVu Sans", "font.size": 9, "svg.hashsalt": "tilesched-draw",
        "svg.fonttype": "path", "axes.titlesize": 10, "figure.dpi": 100,
    })


def save(fig, out, name, fmt, written):
    path = os.path.join(out, f"{name}.{fmt}")
    tmp = path + ".tmp"
    meta = {"Date": None, "Creator": "tilesched scripts/draw.py"} if fmt == "svg" \
        else {"Software": "tilesched scripts/draw.py"}
    fig.savefig(tmp, format=fmt, dpi=100, bbox_inches="tight", metadata=meta)
    os.replace(tmp, path)  # atomic: never a half-written picture
    written.append(path)


def stage_color(plt, stage):
    return plt.get_cmap("tab10")(stage % 10)


def bar_width(latency):
    return latency if latency > 0 else 0.3  # a zero-latency op still shows


def add_bars(ax, bars, height, lw):
    """Draws (x, width, y, colour) bars as one collection (fast on big graphs)."""
    from matplotlib.collections import PolyCollection
    h = height / 2
    verts = [[(x, y - h), (x + w, y - h), (x + w, y + h), (x, y + h)] for x, w, y, _ in bars]
    ax.add_collection(PolyCollection(verts, facecolors=[c for *_, c in bars], edgecolors="black",
                                     linewidths=lw, zorder=3))


def time_unit(g):
    """What one unit of schedule time is: an SM cycle, or on the hopper target
    16 of them (docs/TARGETS.md, "Time unit and slots")."""
    return "unit (16 SM cycles)" if g["target"].get("name") == "hopper" else "cycle"


def title_line(g, s):
    mii = f", MII {s['mii']}" if s["mii"] is not None else ""
    gen = f" ({s['generator']})" if s["generator"] else ""
    ii = f"II {s['ii']} x 16 cycles" if time_unit(g) != "cycle" else f"II {s['ii']}"
    return f"{g['name']}{gen}: {ii}{mii}, {s['stage_count']} stage(s), {len(g['ops'])} ops"


def draw_gantt(plt, patches, g, s, critical, why=None):
    ops, edges, ii = g["ops"], g["edges"], s["ii"]
    n = len(ops)
    agents = s["agent"]
    has_agents = any(a is not None for a in agents)
    lane_of = [a if a is not None else "(no agent)" for a in agents] if has_agents else [""] * n
    first = {}
    for v in sorted(range(n), key=lambda v: (s["start"][v], v)):
        first.setdefault(lane_of[v], len(first))
    order = sorted(range(n), key=lambda v: (first[lane_of[v]], s["start"][v], v))
    row = {v: r for r, v in enumerate(order)}
    crit = why["edges"] if why else set(critical[0]) if critical else set()
    end = max(s["start"][v] + bar_width(ops[v]["latency"]) for v in range(n))
    for e in edges:
        u, v = g["index"][e["from"]], g["index"][e["to"]]
        end = max(end, s["start"][v] + e["distance"] * ii)
    fig, ax = plt.subplots(figsize=(min(16, 6 + end / 12), 1.6 + 0.28 * n))
    if has_agents:
        for k, lane in enumerate(sorted(first, key=first.get)):
            rows = [row[v] for v in range(n) if lane_of[v] == lane]
            lo, hi = min(rows) - 0.5, max(rows) + 0.5
            if k % 2:
                ax.axhspan(lo, hi, color="0.93", zorder=0)
            ax.axhline(lo, color="0.5", lw=0.6, zorder=1)
            ax.text(1.005, (lo + hi) / 2, f"agent {lane}", transform=ax.get_yaxis_transform(),
                    va="center", ha="left", fontsize=8, style="italic")
    add_bars(ax, [(s["start"][v], bar_width(ops[v]["latency"]), row[v],
                   stage_color(plt, s["stage"][v])) for v in range(n)], 0.6, 0.5)
    if why and why["ops"]:
        from matplotlib.collections import PolyCollection
        verts = [[(x, y - 0.34), (x + w, y - 0.34), (x + w, y + 0.34), (x, y + 0.34)]
                 for x, w, y in ((s["start"][v], bar_width(ops[v]["latency"]), row[v])
                                 for v in sorted(why["ops"]))]
        ax.add_collection(PolyCollection(verts, facecolors="none", edgecolors="red",
                                         linewidths=1.8, zorder=4))
    from matplotlib.collections import LineCollection
    plain, styles, ticks = [], [], {False: ([], []), True: ([], [])}
    for k, e in enumerate(edges):
        u, v = g["index"][e["from"]], g["index"][e["to"]]
        x0, x1 = s["start"][u] + e["latency"], s["start"][v] + e["distance"] * ii
        hot = k in crit
        if hot:  # few: full arrows
            ax.annotate("", xy=(x1, row[v]), xytext=(x0, row[u]), zorder=5,
                        arrowprops=dict(arrowstyle="->", lw=1.6, color="red",
                                        ls="--" if e["distance"] > 0 else "-",
                                        shrinkA=0, shrinkB=2))
        else:
            plain.append([(x0, row[u]), (x1, row[v])])
            styles.append("--" if e["distance"] > 0 else "-")
        if e["distance"] > 0:
            ticks[hot][0].append(x1)
            ticks[hot][1].append(row[v])
    if plain:
        ax.add_collection(LineCollection(plain, colors="0.55", linewidths=0.6, linestyles=styles,
                                         zorder=2))
    for hot, (xs, ys) in ticks.items():
        if xs:
            ax.plot(xs, ys, ls="none", marker="|", ms=9, color="red" if hot else "0.55", zorder=4)
    for k in range(1, s["stage_count"] + 1):
        ax.axvline(k * ii, color="0.3", lw=0.7, ls=":", zorder=1)
    ax.set_yticks(range(n))
    ax.set_yticklabels([ops[v]["id"] for v in order])
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_xlim(0, max(end, s["stage_count"] * ii) * 1.02 + 1)
    ax.set_xlabel(f"{time_unit(g)} (dotted: stage boundaries, multiples of II); "
                  "bar: start to start + latency")
    handles = [patches.Patch(color=stage_color(plt, k), label=f"stage {k}")
               for k in range(min(s["stage_count"], 10))]
    handles.append(plt.Line2D([], [], color="0.55", lw=0.8, label="edge (dashed: loop-carried, "
                              "ends at start + distance x II)"))
    if why:
        handles.append(plt.Line2D([], [], color="red", lw=1.6, label=why["label"]))
    elif critical:
        lam, dist = critical[1], critical[2]
        ratio = f"{lam}/{dist}" if dist else f"{lam}/0"
        handles.append(plt.Line2D([], [], color="red", lw=1.6,
                                  label=f"critical recurrence: latency {ratio}, slack "
                                        f"{ii * dist - lam} at II {ii}"))
    axes_inches = fig.get_figheight() * (fig.subplotpars.top - fig.subplotpars.bottom)
    ax.legend(handles=handles, fontsize=7, loc="upper center", frameon=False, ncol=2,
              bbox_to_anchor=(0.5, -0.45 / axes_inches))  # below the x label
    note = "" if critical or why else (" (no recurrence)" if n <= MAX_CRITICAL_OPS
                                else f" (recurrence search skipped above {MAX_CRITICAL_OPS} ops)")
    ax.set_title("One iteration: " + title_line(g, s) + note)
    return fig


def reservation_table(g, s):
    """Columns (label, capacity) and per-row usage: for each column a list of
    II counters and the ops seated in each row. Slot triples hold their
    occupancy for their duration; rate pools are held for the op's footprint,
    max(1, longest triple) (the lowering of docs/BOUNDS.md)."""
    ii, ops, target = s["ii"], g["ops"], g["target"]
    cols, key_of = [], {}
    for sl in target["slots"]:
        if any(t["slot"] == sl["slot"] for op in ops for t in op["resources"]):
            key_of[("slot", sl["slot"])] = len(cols)
            cols.append({"label": f"{sl['slot']} {sl['name']}", "capacity": sl["capacity"]})
    for p in target["pools"]:
        if p["kind"] == "rate" and any(p["name"] in op["pools"] for op in ops):
            key_of[("pool", p["name"])] = len(cols)
            cols.append({"label": f"pool {p['name']}", "capacity": p["capacity"]})
    for c in cols:
        c["used"] = [0] * ii
        c["ops"] = [[] for _ in range(ii)]

    def hold(col, t0, length, units, name):
        for c in range(length):
            r = (t0 + c) % ii
            col["used"][r] += units
            col["ops"][r].append(name)

    for v, op in enumerate(ops):
        footprint = max([1] + [t["duration"] for t in op["resources"]])
        for t in op["resources"]:
            hold(cols[key_of[("slot", t["slot"])]], s["start"][v], t["duration"], t["occupancy"],
                 op["id"])
        for name, count in op["pools"].items():
            if ("pool", name) in key_of:
                hold(cols[key_of[("pool", name)]], s["start"][v], footprint, count, op["id"])
    return cols


def draw_mrt(plt, g, s):
    import numpy as np
    ii = s["ii"]
    cols = reservation_table(g, s)
    ncol = max(1, len(cols))
    fig, ax = plt.subplots(figsize=(2.5 + 1.1 * ncol, 1.5 + min(ii, 120) * 0.22))
    frac = np.zeros((ii, ncol))
    for j, c in enumerate(cols):
        for r in range(ii):
            frac[r, j] = c["used"][r] / c["capacity"]
    ax.imshow(frac, cmap="Blues", vmin=0, vmax=1.25, aspect="auto", interpolation="nearest")
    full, over = [], []
    annotate = ii * ncol <= ANNOTATE_MAX_CELLS
    for j, c in enumerate(cols):
        for r in range(ii):
            used, cap = c["used"][r], c["capacity"]
            if used >= cap:
                (over if used > cap else full).append(plt.Rectangle((j - 0.5, r - 0.5), 1, 1))
            if annotate and used:
                # The holders by name; a pooled cell adds its count.
                names = ",".join(c["ops"][r])
                text = names if cap == 1 and used == 1 else f"{names} {used}/{cap}"
                if len(text) > 16:
                    text = f"{names[:10]}.. {used}/{cap}"
                ax.text(j, r, text, ha="center", va="center", fontsize=6.5,
                        color="white" if used / cap > 0.6 else "black")
    from matplotlib.collections import PatchCollection
    for cells, colour, lw in ((full, "black", 0.8), (over, "red", 1.2)):
        if cells:
            ax.add_collection(PatchCollection(cells, facecolors="none", edgecolors=colour,
                                              hatch="//", linewidths=lw, zorder=2))
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels([f"{c['label']}\n(cap {c['capacity']})" for c in cols], rotation=30,
                       ha="right", fontsize=7)
    step = max(1, math.ceil(ii / 40))
    ax.set_yticks(range(0, ii, step))
    ax.set_ylabel(f"modulo row ({time_unit(g).split(' ')[0]} mod II)")
    ax.set_title(f"Modulo reservation table: {title_line(g, s)}\n{len(cols)} slot/pool columns in "
                 f"use, {len(full) + len(over)} cell(s) at capacity (hatched)", fontsize=9)
    if not cols:
        ax.text(0, (ii - 1) / 2, "no op holds a slot or rate pool", ha="center", va="center")
    return fig


def draw_steady(plt, patches, g, s):
    ops, ii, stages = g["ops"], s["ii"], s["stage_count"]
    n = len(ops)
    iters = max(3, stages)
    windows = iters + stages - 1
    order = sorted(range(n), key=lambda v: (s["start"][v], v))
    rows_per = n + 1
    fig, ax = plt.subplots(figsize=(min(18, 6 + windows * 1.6), 1.6 + 0.16 * iters * rows_per))
    shade = {"prologue": "#dbe9f6", "kernel": "#d9f0d3", "epilogue": "#fde0c5"}
    for w in range(windows):
        part = "prologue" if w < stages - 1 else "epilogue" if w >= iters else "kernel"
        ax.axvspan(w * ii, (w + 1) * ii, color=shade[part], zorder=0, lw=0)
        ax.text((w + 0.5) * ii, -1.2, part, ha="center", va="bottom", fontsize=7)
    add_bars(ax, [(s["start"][v] + k * ii, bar_width(ops[v]["latency"]), k * rows_per + r,
                   stage_color(plt, s["stage"][v]))
                  for k in range(iters) for r, v in enumerate(order)], 0.7, 0.4)
    named = range(iters) if n * iters <= STEADY_NAMED_BARS else range(1)
    for k in named:  # each bar's op, at its start (the first iteration only when crowded)
        for r, v in enumerate(order):
            ax.text(s["start"][v] + k * ii, k * rows_per + r, ops[v]["id"] + " ", ha="right",
                    va="center", fontsize=5.5, zorder=3)
    for k in range(iters):
        ax.text(-0.01, k * rows_per + (n - 1) / 2, f"iteration {k}", transform=ax.get_yaxis_transform(),
                ha="right", va="center", fontsize=8)
        if k:
            ax.axhline(k * rows_per - 1, color="0.6", lw=0.5)
    for w in range(windows + 1):
        ax.axvline(w * ii, color="0.4", lw=0.5, ls=":", zorder=1)
    end = max(s["start"][v] + bar_width(ops[v]["latency"]) for v in range(n)) + (iters - 1) * ii
    ax.set_xlim(0, max(end, windows * ii) + 1)
    ax.set_ylim(iters * rows_per - 1, -2)
    ax.set_yticks([])
    ax.set_xlabel(f"{time_unit(g)} (windows of II; bars: one op of one iteration, "
                  "start to start + latency)")
    handles = [patches.Patch(color=stage_color(plt, k), label=f"stage {k}")
               for k in range(min(stages, 10))]
    axes_inches = fig.get_figheight() * (fig.subplotpars.top - fig.subplotpars.bottom)
    ax.legend(handles=handles, fontsize=7, loc="upper center", frameon=False,
              ncol=min(stages, 10), bbox_to_anchor=(0.5, -0.45 / axes_inches))
    ax.set_title(f"Steady state, {iters} iterations II apart: {title_line(g, s)}")
    return fig


def main():
    ap = argparse.ArgumentParser(description="Draw one tilesched schedule.")
    ap.add_argument("graph")
    ap.add_argument("schedule")
    ap.add_argument("--out", required=True, help="directory for the pictures")
    ap.add_argument("--format", choices=["svg", "png"], default="svg",
                    help="the pictures' format (default: svg)")
    ap.add_argument("--tilesched", metavar="BIN",
                    help="the tilesched binary that resolves the machine model (default: "
                    "$TILESCHED, else build/release/cli/tilesched of this checkout, else "
                    "tilesched on PATH)")
    ap.add_argument("--explain", help="a tilesched.explain/1 document of the same graph and II, "
                    "drawn instead of the critical recurrence")
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.patches as patches
        import matplotlib.pyplot as plt
        import numpy  # noqa: F401  (critical_recurrence, draw_mrt)
    except ImportError as e:
        die(f"needs python3-matplotlib ({e}); run it with /usr/bin/python3", 3)
    style(matplotlib)

    g = load_graph(find_tilesched(args.tilesched), args.graph)
    s = load_schedule(args.schedule, g)
    name = os.path.basename(args.graph)
    for suffix in (".loop.json", ".json"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    os.makedirs(args.out, exist_ok=True)
    written = []
    why = load_explanation(args.explain, g, s) if args.explain else None
    critical = None if why else critical_recurrence(g, s["ii"])
    for kind, fig in (("gantt", draw_gantt(plt, patches, g, s, critical, why)),
                      ("mrt", draw_mrt(plt, g, s)),
                      ("steady", draw_steady(plt, patches, g, s))):
        save(fig, args.out, f"{name}.{kind}", args.format, written)
        plt.close(fig)
    for path in written:
        print(path)
    if why:
        print(f"{name}: {why['label']}: {why['summary']}")
    elif critical:
        ring, lam, dist = critical
        names = [g["edges"][k]["from"] for k in ring] + [g["edges"][ring[0]]["from"]]
        print(f"{name}: critical recurrence {' -> '.join(names)} (latency {lam}, distance "
              f"{dist}, slack {s['ii'] * dist - lam} at II {s['ii']})")
    else:
        print(f"{name}: no critical recurrence drawn")
    lanes = sorted({a for a in s["agent"] if a is not None})
    if lanes:
        print(f"{name}: agent lanes {', '.join(lanes)}")


if __name__ == "__main__":
    main()
