#!/usr/bin/env python3
"""The kernel zoo: compiles each Triton kernel of zoo_kernels.py at every
num_stages from 1 to what fits, keeps its TTGIR before and inside Triton's
pipeliner, records shared memory and registers, checks it against PyTorch
and times all configurations of a kernel interleaved; writes the files in
the layout of ../shared/kernels/triton-h200 (README.md here says what).

usage: kernel_zoo.py --out DIR [--budget-s 480] [--rounds 20] [--kernels a,b]
       [--max-stages N] [--warmup 10] [--rep 25]

Needs a CUDA GPU, Triton 3.6 and PyTorch; without them it says which is
missing in one line and exits 2. Rows are written as they are measured
(rows.jsonl); a configuration that fails to compile or computes a wrong
result is a row, never the end of the run; the wall-clock budget is checked
between configurations, and what it leaves out is a row too.
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

STARTED = time.monotonic()  # the budget counts Triton's import and the GPU's start too
HERE = os.path.dirname(os.path.abspath(__file__))
TOLERANCE = 1e-2  # largest error relative to the largest |reference| that passes


class Kernel:
    """One zoo kernel: its name, class, the tile parameters its name shows,
    the largest num_stages tried, and its function in zoo_kernels.py (the
    name, unless another kernel's function serves it)."""

    def __init__(self, name, klass, params, max_stages, warps=8, fn=None):
        self.name, self.klass, self.params = name, klass, dict(params)
        self.max_stages, self.warps, self.fn = max_stages, warps, fn or name

    def tag(self, stages):
        parts = [f"{self.name}_STAGES{stages}"] + [f"{k}{v}" for k, v in self.params.items()]
        return "_".join(parts + [f"W{self.warps}"])


ZOO = [
    Kernel("softmax", "row reduction (two loops)", {"BLOCK": 1024}, 5),
    Kernel("layernorm", "row reduction (two loops)", {"BLOCK": 1024}, 5),
    Kernel("matmul", "GEMM, pointer loads, fp16", {"BM": 128, "BN": 256, "BK": 32}, 6),
    Kernel("matmul_tma", "GEMM, TMA loads, bf16", {"BM": 128, "BN": 128, "BK": 64}, 6),
    Kernel("matmul_tma_fp8", "GEMM, TMA loads, fp8 e4m3", {"BM": 128, "BN": 128, "BK": 128}, 6,
           fn="matmul_tma"),
    Kernel("matmul_tma_persistent", "persistent GEMM, flattened, TMA, fp16",
           {"BM": 128, "BN": 128, "BK": 64}, 6),
    Kernel("matmul_splitk", "split-K GEMM, pointer loads, fp16",
           {"BM": 128, "BN": 128, "BK": 64, "SPLIT": 8}, 6),
    Kernel("attention", "attention forward, pointer loads, head 64",
           {"BM": 128, "BN": 64, "HEAD": 64}, 5),
    Kernel("attention_tma", "attention forward, TMA loads, head 128",
           {"BM": 128, "BN": 128, "HEAD": 128}, 4),
]

class Budget:
    """A wall-clock budget split between kernels: kernel i may start a
    configuration until its share's end (start + total x (i + 1) / n, so
    what one kernel leaves unused goes to the next), less `reserve` seconds
    kept for timing what it compiled."""

    def __init__(self, seconds, kernels, clock=time.monotonic, reserve=15.0, start=None):
        self.clock, self.start = clock, clock() if start is None else start
        self.seconds, self.kernels, self.reserve = seconds, max(kernels, 1), reserve

    def elapsed(self):
        return self.clock() - self.start

    def share_end(self, index):
        return self.seconds * (index + 1) / self.kernels

    def may_compile(self, index):
        return self.elapsed() < self.share_end(index) - self.reserve

    def may_time(self, seconds_needed):
        return self.elapsed() + seconds_needed <= self.seconds


class Output:
    """The output directory: dumps per configuration, rows.jsonl (this run's
    rows, each flushed as it is written), measured.json and retimed.json
    rewritten whole (atomically) after each kernel."""

    def __init__(self, directory, meta):
        self.dir, self.meta, self.rows = directory, meta, []
        os.makedirs(directory, exist_ok=True)
        self.log = open(os.path.join(directory, "rows.jsonl"), "w", encoding="utf-8")

    def write_text(self, name, text):
        tmp = os.path.join(self.dir, f".{name}.tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, os.path.join(self.dir, name))

    def row(self, row):
        self.rows.append(row)
        self.log.write(json.dumps(row, sort_keys=True) + "\n")
        self.log.flush()

    def truth(self):
        """measured.json (every row) and retimed.json (the timed ones)."""
        timed = [r for r in self.rows if r.get("ms") is not None]
        for name, rows in (("measured.json", self.rows), ("retimed.json", timed)):
            self.write_text(name, json.dumps({"meta": self.meta, "results": rows}, indent=1) + "\n")

    def close(self):
        self.truth()
        self.log.close()


def base_row(kernel, stages, device):
    config = {"STAGES": stages, **kernel.params, "W": kernel.warps}
    return {"tag": kernel.tag(stages), "kernel": kernel.name, "class": kernel.klass,
            "config": config, "status": None, "ms": None, "num_warps": kernel.warps,
            "sm_count": device.get("sm_count")}


def compile_configs(gpu, kernel, index, budget, out):
    """Compiles `kernel` at num_stages 1, 2, ... (up to its max_stages, and
    not past the first that runs out of shared memory); writes the dumps and
    a row for each configuration that does not reach timing. Returns
    [(row, launcher)] of the correct ones."""
    ready = []
    for stages in range(1, kernel.max_stages + 1):
        row = base_row(kernel, stages, gpu.device)
        if not budget.may_compile(index):
            row["status"] = "skipped: wall-clock budget"
            out.row(row)
            continue
        try:
            built = gpu.compile(kernel, stages)
        except Exception as err:  # a refusal inside Triton is a row, not the end
            row["status"] = "compile-failed: " + " ".join(str(err).split())[:300]
            out.row(row)
            if gpu.out_of_resources(err):
                break
            continue
        for key, suffix in (("input", ".input.ttgir"), ("scheduled", ".triton-scheduled.ttgir")):
            if built.dumps.get(key):
                out.write_text(row["tag"] + suffix, built.dumps[key])
        row.update(built.facts)
        row["dumps"] = sorted(k for k, v in built.dumps.items() if v)
        ok = row.get("max_rel_err") is not None and row["max_rel_err"] <= TOLERANCE
        row["status"] = "ok" if ok else "wrong-result"
        if ok:
            ready.append((row, built.run))
        else:
            out.row(row)
    return ready


def time_configs(gpu, kernel, ready, budget, rounds, out):
    """`rounds` samples of each configuration, one per round, in forward then
    reverse order; a round is started only if the budget allows one more
    after it. Rows get the median (ms), the medians of the forward and the
    reverse rounds (ms_runs), the extremes and the rate; with fewer than
    `rounds` samples a row says so and has no ms."""
    samples = {id(run): [] for _, run in ready}
    halves = {id(run): ([], []) for _, run in ready}  # forward rounds, reverse rounds
    last = 0.0
    for r in range(rounds):
        if not budget.may_time(2 * last):
            break
        began = budget.elapsed()
        for row, run in (ready if r % 2 == 0 else ready[::-1]):
            if row["status"] != "ok":
                continue
            try:
                ms = gpu.bench(run)
            except Exception as err:  # a launch that fails while timed is a row too
                row["status"] = "timing-failed: " + " ".join(str(err).split())[:300]
                continue
            samples[id(run)].append(ms)
            halves[id(run)][r % 2].append(ms)
        last = budget.elapsed() - began
    for row, run in ready:
        s = samples[id(run)]
        if row["status"] != "ok":
            pass
        elif len(s) < rounds:
            row["status"] = f"not timed: wall-clock budget ({len(s)} of {rounds} rounds)"
        else:
            row.update(ms=round(statistics.median(s), 5), samples=len(s),
                       ms_min=round(min(s), 5), ms_max=round(max(s), 5),
                       ms_runs=[round(statistics.median(h), 5) for h in halves[id(run)] if h])
            row["tflops"] = round(row["work"] / row["ms"] / 1e9, 1)
        out.row(row)


def run_zoo(gpu, kernels, out, budget, rounds):
    for index, kernel in enumerate(kernels):
        ready = compile_configs(gpu, kernel, index, budget, out)
        time_configs(gpu, kernel, ready, budget, rounds, out)
        out.truth()
    out.close()
    return out.rows


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="the directory written (created if absent)")
    ap.add_argument("--budget-s", type=float, default=480.0,
                    help="wall-clock budget from the start of the process, seconds")
    ap.add_argument("--rounds", type=int, default=20, help="samples of each configuration (>= 20)")
    ap.add_argument("--kernels", default="", help="comma-separated names (default: all)")
    ap.add_argument("--max-stages", type=int, default=0, help="cap every kernel's num_stages")
    ap.add_argument("--warmup", type=int, default=10, help="do_bench warmup, ms")
    ap.add_argument("--rep", type=int, default=25, help="do_bench repetitions, ms")
    args = ap.parse_args(argv)
    names = [k.name for k in ZOO]
    chosen = [n for n in args.kernels.split(",") if n]
    unknown = [n for n in chosen if n not in names]
    if unknown:
        die(f"--kernels: unknown kernel {unknown[0]!r} (known: {', '.join(names)})")
    if args.rounds < 20:
        die(f"--rounds {args.rounds}: at least 20 samples of each configuration")
    if args.budget_s <= 0:
        die("--budget-s must be positive")
    kernels = [k for k in ZOO if not chosen or k.name in chosen]
    if args.max_stages > 0:
        kernels = [Kernel(k.name, k.klass, k.params, min(k.max_stages, args.max_stages), k.warps,
                          k.fn) for k in kernels]
    return args, kernels


def die(msg):
    print(f"kernel_zoo: {msg}", file=sys.stderr)
    sys.exit(2)


def main(argv):
    args, kernels = parse_args(argv)
    # Before Triton is imported: dump every pass's input (and the
    # pipeliner's own steps), compile every configuration afresh.
    os.environ["MLIR_ENABLE_DUMP"] = "1"
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="kernel_zoo_cache_")
    sys.path.insert(0, HERE)
    try:
        import zoo_gpu
    except ImportError as e:
        die(f"needs Triton 3.6 and PyTorch in this Python ({e})")
    gpu = zoo_gpu.TritonGpu(args.warmup, args.rep, die)
    meta = dict(gpu.meta(), kernels="zoo_kernels.py (and kernels.py, the shared kernels it imports)",
                timing=f"do_bench(warmup={args.warmup}, rep={args.rep}) per sample, "
                       f"{args.rounds} rounds interleaved (forward then reverse order); "
                       "ms = median of the samples, ms_runs = medians of the forward and "
                       "the reverse rounds; tflops for the row reductions is TB/s moved",
                budget_s=args.budget_s)
    out = Output(args.out, meta)
    shared = os.path.join(HERE, "..", "..", "generators", "testdata", "ttgir", "kernels.py")
    for name, path in (("zoo_kernels.py", os.path.join(HERE, "zoo_kernels.py")), ("kernels.py", shared)):
        with open(path, encoding="utf-8") as f:
            out.write_text(name, f.read())
    budget = Budget(args.budget_s, len(kernels), start=STARTED)
    rows = run_zoo(gpu, kernels, out, budget, args.rounds)
    timed = sum(1 for r in rows if r.get("ms") is not None)
    print(f"kernel_zoo: {len(rows)} rows, {timed} timed, budget {args.budget_s:.0f} s; "
          f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
