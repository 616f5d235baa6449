#!/usr/bin/env python3
"""The GPU side of a campaign (scripts/triton_campaign.py run): one process
that works through a plan's items from --start, and reports on its own
stdout, one JSON object a line, {"event": "begin", "item": I} before it
touches item I, then {"event": "row", "item": I, "row": {...}} once it is
measured, or {"event": "skip", "item": I, "why": ...}. The parent
(campaign_runner.py) writes the rows; if this process dies inside an item,
the parent writes that item's failure row and starts another worker after
it. Anything else printed on fd 1 goes to stderr.

Per configuration, Triton's own schedule is compiled without the stages
hook and checked; each item is then compiled (the control: through the hook
with the text unchanged; a candidate: with its export), checked against the
reference, and timed against Triton's own in `rounds` pairs in alternating
order (the median of each side's samples). The configuration gets a fair
share of the time left, (deadline - now) / configurations left, when it
starts: its candidates past that share are skipped; nothing starts past the
deadline.

The bench does the GPU work: BENCH is "FILE.py:NAME", a class with
env(), problem(kernel, stages, spec), compile(problem, export) and
sample(run) (triton_bench.py:TritonBench on a GPU; the tests pass a fake).

usage: campaign_worker.py PLAN --start I --deadline EPOCH --campaign K --bench FILE.py:NAME
       [--rounds N] [--tolerance X]
"""
import argparse
import importlib.util
import json
import os
import statistics
import sys
import time


def load_object(spec):
    """The object NAME of the Python file FILE for a spec "FILE.py:NAME"."""
    path, _, name = spec.rpartition(":")
    if not path or not name:
        raise ValueError(f"{spec!r} is not FILE.py:NAME")
    module_spec = importlib.util.spec_from_file_location(
        "campaign_" + os.path.splitext(os.path.basename(path))[0], path)
    if module_spec is None:
        raise ValueError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(module_spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    module_spec.loader.exec_module(module)
    return getattr(module, name)


class Emitter:
    """The JSON-lines channel to the parent, on a private copy of fd 1."""

    def __init__(self):
        self._out = os.fdopen(os.dup(1), "w", encoding="utf-8")
        os.dup2(2, 1)  # stray prints (compilers, libraries) go to stderr

    def __call__(self, **event):
        self._out.write(json.dumps(event, sort_keys=True) + "\n")
        self._out.flush()


def one_line(err):
    return " ".join(f"{type(err).__name__}: {err}".split())[:300]


class Config:
    """One (kernel, num_stages)'s problem and Triton's own compiled kernel."""

    def __init__(self, bench, cfg):
        self.problem = bench.problem(cfg["kernel"], cfg["stages"], cfg.get("problem"))
        self.own, self.own_error = None, None
        try:
            self.own = bench.compile(self.problem, None)
        except Exception as err:  # noqa: BLE001 (a failure is a row, never the end)
            self.own_error = one_line(err)


def time_pair(bench, own_run, run, rounds):
    """`rounds` samples of each, alternating which goes first: (theirs, own)."""
    mine, base = [], []
    for r in range(rounds):
        order = ((run, mine), (own_run, base)) if r % 2 == 0 else ((own_run, base), (run, mine))
        for fn, samples in order:
            samples.append(bench.sample(fn))
    return mine, base


def measure(bench, config, item, args):
    """The measured fields of one item (the parent adds the plan's)."""
    if item.get("refused"):
        return {"status": "refused: " + item["refused"]}
    if config.own is None:
        return {"status": "triton-own-failed: " + (config.own_error or "")}
    export = {}
    if item["kind"] == "candidate":
        with open(item["export"], encoding="utf-8") as f:
            export = json.load(f)
    try:
        v = bench.compile(config.problem, export)
    except Exception as err:  # noqa: BLE001
        return {"status": "compile-failed: " + one_line(err)}
    row = {"max_abs_err": f"{v.abs_err:.3g}", "max_rel_err": f"{v.rel_err:.3g}",
           "shared_bytes": v.shared_bytes, "n_regs": v.n_regs, "n_spills": v.n_spills,
           "ops_moved": v.ops_moved}
    if not v.rel_err <= args.tolerance:
        row["status"] = "wrong-result"
        return row
    mine, base = time_pair(bench, config.own.run, v.run, args.rounds)
    ms, own_ms = statistics.median(mine), statistics.median(base)
    row.update(status="ok", ms=f"{ms:.4f}", ms_min=f"{min(mine):.4f}", ms_max=f"{max(mine):.4f}",
               samples=len(mine), triton_ms=f"{own_ms:.4f}", rel_to_triton=f"{ms / own_ms:.4f}")
    flops = getattr(config.problem, "flops", None)
    if flops:
        row["tflops"] = f"{flops / ms / 1e9:.1f}"
    return row


def work(bench, plan, args, emit):
    items = plan["items"]
    configs = plan["configs"]
    config, config_index, share_end = None, None, None
    for i in range(args.start, len(items)):
        item = items[i]
        now = time.time()
        if item["config"] != config_index:
            config_index, config = item["config"], None
            left = len({it["config"] for it in items[i:]})
            share_end = now + max(args.deadline - now, 0) / left
        if now >= args.deadline or (item["kind"] == "candidate" and now >= share_end):
            emit(event="skip", item=i, why="budget")
            continue
        emit(event="begin", item=i)
        started = time.time()
        try:
            if config is None and not item.get("refused"):
                config = Config(bench, configs[config_index])
            row = measure(bench, config, item, args)
        except Exception as err:  # noqa: BLE001
            row = {"status": "failed: " + one_line(err)}
        row["seconds"] = f"{time.time() - started:.1f}"
        emit(event="row", item=i, row=row)


def die_with_parent():
    """The kernel kills this process when its parent dies (Linux), so that
    a campaign cut off leaves no worker holding the GPU."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except (OSError, AttributeError):
        pass


def main(argv):
    die_with_parent()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("plan")
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--deadline", type=float, required=True)
    ap.add_argument("--campaign", default="1")
    ap.add_argument("--bench", required=True)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--tolerance", type=float, default=1e-2)
    args = ap.parse_args(argv)
    emit = Emitter()
    with open(args.plan, encoding="utf-8") as f:
        plan = json.load(f)
    try:
        bench = load_object(args.bench)()
        emit(event="env", env=bench.env())
    except BaseException as err:  # noqa: BLE001 (SystemExit of a missing GPU stack too)
        emit(event="fatal", why=one_line(err))
        return 2
    work(bench, plan, args, emit)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
