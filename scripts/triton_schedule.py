#!/usr/bin/env python3
"""Compiles one of the shared Triton kernels with tilesched's stage
assignment in place of Triton's, checks it against PyTorch and times it
interleaved with Triton's own (docs/TTGIR.md, "Export to Triton").

Needs a CUDA GPU, Triton 3.6 and PyTorch. For each EXPORT (written by
`tilesched export GRAPH SCHEDULE --to triton` from the kernel's
`*.triton-scheduled.ttgir` at the same num_stages) the kernel is compiled
through a stages hook (`triton.knobs.runtime.add_stages_inspection_hook`):
its `ttgir` stage runs the backend's own `make_ttgir` twice, first with
only the passes it adds before `tritongpu-pipeline`, then with only that
pass and those after it (the pass list is the backend's: its `add_*` calls
are filtered, not copied); in between the module is printed, its loop's
`loop.stage` / `loop.cluster` are rewritten from the export
(ttgir_schedule_text.py) and the text is parsed back. Triton's own schedule
is compiled without the hook; `--control` adds the hook with the text left
as Triton scheduled it.

Each kernel is checked against PyTorch, then all are timed in rounds, one
`do_bench` sample of each per round, in alternating order; the CSV row of
each (kernel, num_stages, schedule source) holds the median and extremes
of its samples, TFLOP/s, shared memory, registers, spills and the largest
error. A kernel that does not compile, or computes a wrong result, gets a
row saying so and no time.

usage: triton_schedule.py KERNEL STAGES [EXPORT ...] [--csv OUT] [--rounds 20]
       [--control] [--keep DIR] [--kernels-dir DIR]
KERNEL: matmul, matmul_tma, attention or attention_tma. Exit status 2 with
one line when Triton, PyTorch or a GPU is missing, or on bad input.
"""
import argparse
import csv
import hashlib
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ttgir_schedule_text as text_rewrite  # noqa: E402

KERNELS = ("matmul", "matmul_tma", "attention", "attention_tma")
TOLERANCE = 1e-2  # largest error relative to the largest |reference| that passes
FIELDS = ["kernel", "num_stages", "source", "export", "status", "ms", "ms_min", "ms_max",
          "samples", "rel_to_triton", "tflops", "shared_bytes", "n_regs", "n_spills",
          "max_abs_err", "max_rel_err", "ops_moved", "device", "triton", "torch"]


def die(msg):
    print(f"triton_schedule: {msg}", file=sys.stderr)
    sys.exit(2)


def need_gpu_stack():
    try:
        import torch
        import triton
        import triton.knobs  # noqa: F401  (the stages hook)
        import triton.testing  # noqa: F401  (do_bench)
    except ImportError as e:
        die(f"needs Triton 3.6 and PyTorch in this Python ({e}); run it with one that has both")
    if not triton.__version__.startswith("3.6"):
        die(f"needs Triton 3.6 (this Python has {triton.__version__})")
    if not torch.cuda.is_available():
        die("needs a CUDA GPU (torch.cuda.is_available() is false)")
    return torch, triton


class _Split:
    """A stand-in for the pybind pass modules (`passes`, `nvidia`) inside
    the backend's make_ttgir: an add_* call reaches the real one only on
    the chosen side of tritongpu-pipeline ('before' or 'after')."""

    def __init__(self, real, state):
        self._real, self._state = real, state

    def __getattr__(self, name):
        attr = getattr(self._real, name)
        if isinstance(attr, types.ModuleType):
            return _Split(attr, self._state)
        if not (name.startswith("add_") and callable(attr)):
            return attr
        state = self._state

        def add(*args, **kwargs):
            if name == "add_pipeline":
                state["seen"] = True
            state["passes"].append(name)
            if state["seen"] == (state["phase"] == "after"):
                return attr(*args, **kwargs)
            return None
        return add


def run_make_ttgir(backend, mod, metadata, options, capability, phase):
    fn = backend.make_ttgir
    g = fn.__globals__
    saved = {k: g[k] for k in ("passes", "nvidia") if k in g}
    state = {"phase": phase, "seen": False, "passes": []}
    try:
        for k, v in saved.items():
            g[k] = _Split(v, state)
        out = fn(mod, metadata, options, capability)
    finally:
        g.update(saved)
    if not state["seen"]:
        raise RuntimeError("the backend's make_ttgir adds no tritongpu-pipeline pass "
                           f"(passes: {', '.join(state['passes'])})")
    return out


def make_hook(export, keep, label, note, salt=""):
    """The stages hook applying `export` (None: the text as Triton
    scheduled it) in the ttgir stage; `note` receives ops_moved. A `salt`
    gives the compiled kernel a cache key of its own (a capture must
    compile, not hit Triton's cache)."""
    body = (json.dumps(export, sort_keys=True) if export else "control") + salt
    with open(__file__, encoding="utf-8") as f:
        body += f.read()  # another script, another compiled kernel
    key = "tilesched-" + hashlib.sha256(body.encode()).hexdigest()

    def hook(*args, **kwargs):
        if not args and not kwargs:  # Triton asks for the key of its cache
            return key, key
        given = dict(zip(("self", "stages", "options", "language", "capability"), args), **kwargs)
        backend, stages = given["self"], given["stages"]
        options, capability = given["options"], given["capability"]

        def ttgir(src, metadata):
            from triton._C.libtriton import ir
            mod = run_make_ttgir(backend, src, metadata, options, capability, "before")
            before = str(mod)
            index = text_rewrite.scheduled_loop_index(before)
            after = text_rewrite.apply_schedule(before, export, index) if export else before
            old = text_rewrite.read_schedule(before, index)
            new = text_rewrite.read_schedule(after, index)
            note["ops_moved"] = sum(a != b for a, b in zip(old, new))
            if keep:
                for name, t in (("before", before), ("after", after)):
                    with open(os.path.join(keep, f"{label}.{name}.ttgir"), "w") as f:
                        f.write(t)
            with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as f:
                f.write(after)
            try:
                parsed = ir.parse_mlir_module(f.name, src.context)
            finally:
                os.unlink(f.name)
            parsed.context = src.context
            return run_make_ttgir(backend, parsed, metadata, options, capability, "after")
        stages["ttgir"] = ttgir
        return None
    return hook


def load_kernels(directory):
    path = os.path.join(directory, "kernels.py")
    if not os.path.exists(path):
        die(f"{path}: no such file (give --kernels-dir, the directory of the shared kernels)")
    spec = importlib.util.spec_from_file_location("shared_kernels", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Problem:
    """One kernel's launch at the shared dumps' sizes (kernels.py's
    docstring), its inputs, its PyTorch reference and its FLOPs."""

    def __init__(self, torch, triton, kernels, name, stages):
        self.torch, self.name, self.stages = torch, name, stages
        self.jit_fn = getattr(kernels, name).fn
        torch.manual_seed(0)
        dev = "cuda"
        if name.startswith("matmul"):
            m = n = k = 8192
            self.a = torch.randn(m, k, device=dev, dtype=torch.float16)
            self.b = torch.randn(k, n, device=dev, dtype=torch.float16)
            self.out = torch.empty(m, n, device=dev, dtype=torch.float16)
            self.flops = 2.0 * m * n * k
            self.ref = lambda: torch.matmul(self.a, self.b)
        else:
            z, n_ctx, head = 64, 4096, 128
            shape = (z, n_ctx, head)
            self.q, self.k, self.v = (torch.randn(shape, device=dev, dtype=torch.float16)
                                      for _ in range(3))
            self.out = torch.empty(shape, device=dev, dtype=torch.float16)
            self.scale = head ** -0.5
            self.flops = 4.0 * z * n_ctx * n_ctx * head
            self.ref = self._attention_ref
        self.launch = getattr(self, "_launch_" + name)(triton)
        self._reference = None

    def reference(self):
        if self._reference is None:
            self._reference = self.ref()
        return self._reference

    def _attention_ref(self):
        torch = self.torch
        out = torch.empty_like(self.out)
        for h in range(0, self.q.shape[0], 8):
            q, k, v = (x[h:h + 8].float() for x in (self.q, self.k, self.v))
            p = torch.softmax(q @ k.transpose(1, 2) * self.scale, dim=-1)
            out[h:h + 8] = (p @ v).half()
        return out

    def _launch_matmul(self, triton):
        a, b, c = self.a, self.b, self.out
        m, k = a.shape
        n = b.shape[1]
        grid = (triton.cdiv(m, 128) * triton.cdiv(n, 128),)
        return lambda f: f[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0),
                                 b.stride(1), c.stride(0), c.stride(1), BM=128, BN=128, BK=64,
                                 STAGES=self.stages, num_warps=8, num_stages=self.stages)

    def _launch_matmul_tma(self, triton):
        from triton.tools.tensor_descriptor import TensorDescriptor
        a, b, c = self.a, self.b, self.out
        m, k = a.shape
        n = b.shape[1]
        ad = TensorDescriptor.from_tensor(a, [128, 64])
        bd = TensorDescriptor.from_tensor(b, [64, 128])
        cd = TensorDescriptor.from_tensor(c, [128, 128])
        grid = (triton.cdiv(m, 128) * triton.cdiv(n, 128),)
        return lambda f: f[grid](ad, bd, cd, m, n, k, BM=128, BN=128, BK=64, STAGES=self.stages,
                                 WS=False, num_warps=8, num_stages=self.stages)

    def _launch_attention(self, triton):
        q, k, v, o = self.q, self.k, self.v, self.out
        z, n_ctx, head = q.shape
        grid = (n_ctx // 128, z)
        return lambda f: f[grid](q, k, v, o, self.scale, q.stride(0), q.stride(1), n_ctx,
                                 HEAD=head, BM=128, BN=64, STAGES=self.stages, num_warps=8,
                                 num_stages=self.stages)

    def _launch_attention_tma(self, triton):
        from triton.tools.tensor_descriptor import TensorDescriptor
        z, n_ctx, head = self.q.shape
        flat = [x.view(z * n_ctx, head) for x in (self.q, self.k, self.v, self.out)]
        qd, kd, vd, od = (TensorDescriptor.from_tensor(x, [128, head]) for x in flat)
        grid = (n_ctx // 128, z)
        return lambda f: f[grid](qd, kd, vd, od, self.scale, n_ctx, HEAD=head, BM=128, BN=128,
                                 STAGES=self.stages, WS=False, num_warps=8,
                                 num_stages=self.stages)


def compile_variant(torch, triton, problem, hook):
    """A fresh JIT function compiled and run once under `hook`: (launcher,
    compiled kernel, max_abs_err, max_rel_err). The launcher sets the hook
    for its own launches, so that no launch can reach a kernel compiled
    without it."""
    fresh = triton.jit(problem.jit_fn)

    def run():
        triton.knobs.runtime.add_stages_inspection_hook = hook
        try:
            return problem.launch(fresh)
        finally:
            triton.knobs.runtime.add_stages_inspection_hook = None
    problem.out.zero_()
    compiled = run()
    torch.cuda.synchronize()
    ref = problem.reference()
    diff = (problem.out.float() - ref.float()).abs().max().item()
    rel = diff / max(ref.float().abs().max().item(), 1e-30)
    return run, compiled, diff, rel


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kernel", choices=KERNELS)
    ap.add_argument("stages", type=int)
    ap.add_argument("exports", nargs="*", help="tilesched.triton/1 files of this kernel's loop")
    ap.add_argument("--csv", help="append the rows here (a header when new); default stdout")
    ap.add_argument("--rounds", type=int, default=20, help="do_bench samples of each (>= 20)")
    ap.add_argument("--warmup", type=int, default=25)
    ap.add_argument("--rep", type=int, default=100)
    ap.add_argument("--control", action="store_true",
                    help="also Triton's own schedule through the hook (the text unchanged)")
    ap.add_argument("--keep", help="write each variant's TTGIR before and after the rewrite here")
    ap.add_argument("--kernels-dir", default=os.path.join(HERE, "..", "generators", "testdata", "ttgir"))
    return ap.parse_args(argv)


def read_exports(args):
    """[(source, path, export)] of the exports given, each checked to be of
    this kernel at this num_stages."""
    exports = []
    for path in args.exports:
        try:
            with open(path, encoding="utf-8") as f:
                e = json.load(f)
        except (OSError, ValueError) as err:
            die(f"{path}: {err}")
        tag = f"/{args.kernel}_STAGES{args.stages}_"
        if e.get("format") != "tilesched.triton/1" or tag not in e.get("graph", ""):
            die(f"{path}: not a tilesched.triton/1 export of {args.kernel} at num_stages "
                f"{args.stages} (graph {e.get('graph')!r})")
        exports.append((e.get("source", "export"), path, e))
    return exports


def compile_all(torch, triton, problem, args, variants):
    """One CSV row per variant (source, path, export: None for Triton's
    own, {} for the control), and the launchers of the correct ones."""
    rows, timed = [], []
    for source, path, export in variants:
        row = {"kernel": args.kernel, "num_stages": args.stages, "source": source,
               "export": os.path.basename(path), "device": torch.cuda.get_device_name(),
               "triton": triton.__version__, "torch": torch.__version__}
        note = {}
        hook = None if export is None else make_hook(export or None, args.keep,
                                                     f"{args.kernel}_S{args.stages}_{source}", note)
        try:
            run, compiled, abs_err, rel_err = compile_variant(torch, triton, problem, hook)
        except Exception as err:  # a refusal inside Triton is a finding, not a crash
            row["status"] = "compile-failed: " + " ".join(str(err).split())[:300]
            rows.append(row)
            continue
        row.update(max_abs_err=f"{abs_err:.3g}", max_rel_err=f"{rel_err:.3g}",
                   shared_bytes=compiled.metadata.shared, n_regs=compiled.n_regs,
                   n_spills=compiled.n_spills, ops_moved=note.get("ops_moved", ""))
        row["status"] = "ok" if rel_err <= TOLERANCE else "wrong-result"
        rows.append(row)
        if row["status"] == "ok":
            timed.append((row, run, []))
    return rows, timed


def time_interleaved(triton, problem, args, timed):
    """`rounds` do_bench samples of each launcher, alternating the order
    every round; the rows get the median, extremes and ratio to Triton's."""
    for r in range(max(args.rounds, 1)):
        for row, run, samples in (timed if r % 2 == 0 else timed[::-1]):
            samples.append(triton.testing.do_bench(run, warmup=args.warmup, rep=args.rep,
                                                   return_mode="median"))
    base = next((statistics.median(s) for row, _, s in timed if row["source"] == "triton"), None)
    for row, _, samples in timed:
        ms = statistics.median(samples)
        row.update(ms=f"{ms:.4f}", ms_min=f"{min(samples):.4f}", ms_max=f"{max(samples):.4f}",
                   samples=len(samples), tflops=f"{problem.flops / ms / 1e9:.1f}",
                   rel_to_triton=f"{ms / base:.4f}" if base else "")


def main(argv):
    args = parse_args(argv)
    exports = read_exports(args)
    torch, triton = need_gpu_stack()
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    problem = Problem(torch, triton, load_kernels(args.kernels_dir), args.kernel, args.stages)
    variants = [("triton", "", None)] + ([("triton-via-hook", "", {})] if args.control else [])
    rows, timed = compile_all(torch, triton, problem, args, variants + exports)
    time_interleaved(triton, problem, args, timed)
    out = open(args.csv, "a", newline="") if args.csv else sys.stdout
    writer = csv.DictWriter(out, fieldnames=FIELDS)
    if not args.csv or out.tell() == 0:
        writer.writeheader()
    writer.writerows(rows)
    if args.csv:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
