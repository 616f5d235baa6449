#!/usr/bin/env python3
"""Tests of kernel_zoo.py's logic on the CPU, without Triton or PyTorch: a
fake GPU stands for zoo_gpu.TritonGpu (compiles that fail or run out of
shared memory, wrong results, samples from a table) and a fake clock for
the wall clock; and zoo_gpu.py itself runs on stand-ins for torch and
triton, whose kernels bind each launch's arguments to their signature.

usage: kernel_zoo_test.py
"""
import ast
import collections
import inspect
import json
import math
import os
import subprocess
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kernel_zoo as kz  # noqa: E402
import zoo_dumps  # noqa: E402

Built = collections.namedtuple("Built", "run dumps facts")

LOG = """noise before
// -----// IR Dump Before TritonGPUAssignLatencies (tritongpu-assign-latencies) ('builtin.module' operation) //----- //
module { first }
// -----// IR Dump Before TritonGPUScheduleLoops (tritongpu-schedule-loops) ('builtin.module' operation) //----- //
module { scheduling }
// -----// IR Dump Before TritonGPUPipeline (tritongpu-pipeline) ('builtin.module' operation) //----- //
module { scheduled }


// -----// SoftwarePipeliner internal IR Dump After: LowerLoops
module { lowered }


// -----// SoftwarePipeliner internal IR Dump After: ExpandLoops
module { expanded }


// -----// IR Dump Before TritonGPUPrefetch (tritongpu-prefetch) ('builtin.module' operation) //----- //
module { later }
"""


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


class FakeGpu:
    """compile: `fail` maps (kernel, stages) to an error message, `wrong`
    holds configurations with a large error; `smem_limit` stages and more
    run out of shared memory. Each compile costs `compile_s` and each
    sample `sample_s` of the fake clock; a sample of S stages is 1 + 0.1 S
    ms plus the round number / 1000 (so medians are checkable)."""

    def __init__(self, clock, fail=None, wrong=(), smem_limit=99, compile_s=1.0, sample_s=0.05):
        self.clock, self.fail, self.wrong = clock, fail or {}, set(wrong)
        self.smem_limit, self.compile_s, self.sample_s = smem_limit, compile_s, sample_s
        self.device = {"name": "Fake H200", "sm_count": 132}
        self.compiled, self.benched, self.bench_fail = [], [], set()

    def compile(self, kernel, stages):
        self.clock.t += self.compile_s
        self.compiled.append((kernel.name, stages))
        if stages >= self.smem_limit:
            raise RuntimeError(f"out of resource: shared memory, Required: {stages * 65536}")
        if (kernel.name, stages) in self.fail:
            raise RuntimeError(self.fail[(kernel.name, stages)])
        rel = 0.5 if (kernel.name, stages) in self.wrong else 1e-4
        counter = {"n": 0}

        def run():
            counter["n"] += 1
            return (kernel.name, stages, counter["n"])
        facts = {"shared_bytes": 32768 * stages, "n_regs": 128, "n_spills": 0,
                 "max_abs_err": rel, "max_rel_err": rel, "work": 2.0e12}
        return Built(run, zoo_dumps.split_dumps(LOG.replace("module {", f"module {{ {kernel.name} S{stages}")),
                     facts)

    def bench(self, run):
        self.clock.t += self.sample_s
        name, stages, n = run()
        if (name, stages) in self.bench_fail and n >= 3:
            raise RuntimeError("CUDA error: an illegal memory access was encountered")
        self.benched.append((name, stages))
        return 1.0 + 0.1 * stages + n / 1000.0

    @staticmethod
    def out_of_resources(err):
        return "out of resource" in str(err)


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def small_zoo():
    return [kz.Kernel("softmax", "row", {"BLOCK": 1024}, 3),
            kz.Kernel("matmul", "gemm", {"BM": 128, "BN": 256, "BK": 32}, 4)]


def run(gpu, clock, kernels, budget_s=540.0, rounds=20):
    out_dir = tempfile.mkdtemp(prefix="zoo_test_")
    out = kz.Output(out_dir, {"gpu": "Fake H200"})
    rows = kz.run_zoo(gpu, kernels, out, kz.Budget(budget_s, len(kernels), clock), rounds)
    return rows, out_dir


class Dumps(unittest.TestCase):
    def test_split_keeps_the_input_and_the_pipeliner_dumps(self):
        d = zoo_dumps.split_dumps(LOG)
        self.assertTrue(d["input"].startswith("// -----// IR Dump Before TritonGPUAssignLatencies"))
        self.assertIn("module { first }", d["input"])
        self.assertNotIn("scheduling", d["input"])
        s = d["scheduled"]
        self.assertTrue(s.startswith("// -----// IR Dump Before TritonGPUPipeline"))
        order = [s.index(x) for x in ("{ scheduled }", "LowerLoops", "{ lowered }",
                                      "ExpandLoops", "{ expanded }")]
        self.assertEqual(order, sorted(order))
        self.assertIn("{ scheduled }\n\n\n// -----// SoftwarePipeliner", s)
        self.assertNotIn("later", s)
        self.assertNotIn("scheduling", s)

    def test_missing_dumps_are_none(self):
        self.assertEqual(zoo_dumps.split_dumps("nothing here\n"), {"input": None, "scheduled": None})

    def test_the_last_compile_wins(self):
        twice = LOG + LOG.replace("first", "second").replace("{ scheduled }", "{ again }")
        d = zoo_dumps.split_dumps(twice)
        self.assertIn("second", d["input"])
        self.assertIn("{ again }", d["scheduled"])
        self.assertNotIn("{ scheduled }", d["scheduled"])


class Zoo(unittest.TestCase):
    def test_every_configuration_is_a_row_and_the_files_follow_the_shared_layout(self):
        clock = Clock()
        gpu = FakeGpu(clock, fail={("matmul", 2): "PassManager::run failed"},
                      wrong={("softmax", 2)})
        rows, out_dir = run(gpu, clock, small_zoo())
        status = {r["tag"]: r["status"] for r in rows}
        self.assertEqual(len(rows), 3 + 4)
        self.assertEqual(status["matmul_STAGES2_BM128_BN256_BK32_W8"],
                         "compile-failed: PassManager::run failed")
        self.assertEqual(status["softmax_STAGES2_BLOCK1024_W8"], "wrong-result")
        self.assertEqual(status["matmul_STAGES3_BM128_BN256_BK32_W8"], "ok")
        files = set(os.listdir(out_dir))
        for tag in ("softmax_STAGES1_BLOCK1024_W8", "softmax_STAGES2_BLOCK1024_W8",
                    "matmul_STAGES4_BM128_BN256_BK32_W8"):
            self.assertIn(tag + ".input.ttgir", files)
            self.assertIn(tag + ".triton-scheduled.ttgir", files)
        self.assertNotIn("matmul_STAGES2_BM128_BN256_BK32_W8.input.ttgir", files)
        with open(os.path.join(out_dir, "matmul_STAGES4_BM128_BN256_BK32_W8.input.ttgir")) as f:
            self.assertIn("matmul S4", f.read())
        retimed = read_json(os.path.join(out_dir, "retimed.json"))
        measured = read_json(os.path.join(out_dir, "measured.json"))
        self.assertEqual(retimed["meta"], {"gpu": "Fake H200"})
        self.assertEqual(len(measured["results"]), 7)
        self.assertEqual(sorted(r["tag"] for r in retimed["results"]),
                         sorted(t for t, s in status.items() if s == "ok"))
        with open(os.path.join(out_dir, "rows.jsonl")) as f:
            lines = f.read().splitlines()
        self.assertEqual([json.loads(x) for x in lines], rows)

    def test_a_timed_row_holds_the_median_of_its_interleaved_samples(self):
        clock = Clock()
        gpu = FakeGpu(clock)
        rows, _ = run(gpu, clock, small_zoo()[:1], rounds=20)
        row = next(r for r in rows if r["config"]["STAGES"] == 3)
        self.assertEqual(row["samples"], 20)
        self.assertAlmostEqual(row["ms"], 1.3 + 10.5 / 1000.0, places=5)  # samples 1.3 + n/1000
        self.assertAlmostEqual(row["ms_min"], 1.301, places=5)
        self.assertAlmostEqual(row["ms_max"], 1.320, places=5)
        self.assertEqual(len(row["ms_runs"]), 2)
        self.assertAlmostEqual(row["tflops"], round(2.0e12 / row["ms"] / 1e9, 1))
        self.assertEqual(row["config"], {"STAGES": 3, "BLOCK": 1024, "W": 8})
        self.assertEqual((row["shared_bytes"], row["n_regs"], row["sm_count"]), (98304, 128, 132))
        # Interleaved: round 0 forward, round 1 reverse.
        self.assertEqual(gpu.benched[:6], [("softmax", 1), ("softmax", 2), ("softmax", 3),
                                           ("softmax", 3), ("softmax", 2), ("softmax", 1)])
        self.assertEqual(len(gpu.benched), 60)

    def test_a_launch_that_fails_while_timed_is_a_row_and_the_others_are_timed(self):
        clock = Clock()
        gpu = FakeGpu(clock)
        gpu.bench_fail = {("softmax", 2)}
        rows, _ = run(gpu, clock, small_zoo())
        status = {r["tag"]: r["status"] for r in rows}
        self.assertTrue(status["softmax_STAGES2_BLOCK1024_W8"].startswith(
            "timing-failed: CUDA error: an illegal memory access"), status)
        self.assertIsNone(next(r for r in rows if r["tag"] == "softmax_STAGES2_BLOCK1024_W8")["ms"])
        self.assertEqual(sum(s == "ok" for s in status.values()), 6)
        self.assertEqual(gpu.benched.count(("softmax", 2)), 2)  # the third launch failed
        self.assertEqual(gpu.benched.count(("softmax", 1)), 20)

    def test_running_out_of_shared_memory_ends_the_kernel_not_the_run(self):
        clock = Clock()
        gpu = FakeGpu(clock, smem_limit=3)
        rows, _ = run(gpu, clock, small_zoo())
        self.assertEqual([s for n, s in gpu.compiled if n == "matmul"], [1, 2, 3])
        self.assertEqual([s for n, s in gpu.compiled if n == "softmax"], [1, 2, 3])
        failed = [r["tag"] for r in rows if r["status"].startswith("compile-failed")]
        self.assertEqual(failed, ["softmax_STAGES3_BLOCK1024_W8", "matmul_STAGES3_BM128_BN256_BK32_W8"])
        self.assertEqual(sum(r["status"] == "ok" for r in rows), 4)

    def test_the_budget_is_checked_between_configurations(self):
        clock = Clock()
        gpu = FakeGpu(clock, compile_s=30.0, sample_s=0.5)
        rows, _ = run(gpu, clock, small_zoo(), budget_s=120.0)
        # Each kernel may start a compile until its share's end less the
        # timing reserve: 45 s (softmax: at 0 and 30 s), then 105 s (matmul:
        # at 80 s, after softmax's 20 s of timing).
        self.assertEqual(gpu.compiled, [("softmax", 1), ("softmax", 2), ("matmul", 1)])
        skipped = [r["tag"] for r in rows if r["status"] == "skipped: wall-clock budget"]
        self.assertEqual(len(skipped), 1 + 3)
        self.assertLessEqual(clock.t - 1000.0, 120.0 + 30.0)
        for r in rows:
            if r["status"] == "ok":
                self.assertEqual(r["samples"], 20)

    def test_the_budget_counts_from_the_start_it_is_given(self):
        clock = Clock()
        budget = kz.Budget(100.0, 2, clock, start=clock.t - 30.0)  # the process began 30 s ago
        self.assertEqual(budget.elapsed(), 30.0)
        self.assertTrue(budget.may_compile(0))  # until 50 - 15 s
        clock.t += 5.0
        self.assertFalse(budget.may_compile(0))
        self.assertTrue(budget.may_time(65.0))
        self.assertFalse(budget.may_time(65.5))

    def test_timing_that_does_not_fit_is_a_row_without_a_time(self):
        clock = Clock()
        gpu = FakeGpu(clock, compile_s=1.0, sample_s=5.0)
        rows, out_dir = run(gpu, clock, small_zoo()[:1], budget_s=60.0)
        statuses = {r["status"] for r in rows}
        self.assertTrue(all(s.startswith("not timed: wall-clock budget") for s in statuses), statuses)
        self.assertTrue(all(r["ms"] is None for r in rows))
        self.assertLessEqual(clock.t - 1000.0, 60.0)
        self.assertEqual(read_json(os.path.join(out_dir, "retimed.json"))["results"], [])


class Table(unittest.TestCase):
    def test_the_zoo_has_eight_classes_each_a_kernel_of_zoo_kernels(self):
        with open(os.path.join(HERE, "zoo_kernels.py")) as f:
            tree = ast.parse(f.read())
        defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        defined |= {a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
        self.assertGreaterEqual(len({k.klass for k in kz.ZOO}), 8)
        for k in kz.ZOO:
            self.assertIn(k.fn, defined)
            self.assertGreaterEqual(k.max_stages, 3)
        tags = [k.tag(1) for k in kz.ZOO]
        self.assertEqual(len(set(tags)), len(tags))

    def test_no_module_imports_the_driver(self):
        # kernel_zoo.py imports zoo_gpu; nothing it imports imports it back.
        for name in ("zoo_gpu.py", "zoo_dumps.py", "zoo_kernels.py"):
            with open(os.path.join(HERE, name)) as f:
                tree = ast.parse(f.read())
            imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
            imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
            self.assertNotIn("kernel_zoo", imported, name)

    def test_the_gpu_side_names_a_problem_for_every_kernel(self):
        with open(os.path.join(HERE, "zoo_gpu.py")) as f:
            text = f.read()
        for k in kz.ZOO:
            self.assertIn(f"def _setup_{k.name}(self)", text)


class FakeTensor:
    """Shapes and dtypes only: what zoo_gpu's problems do to their tensors."""

    def __init__(self, shape, dtype="float32"):
        self.shape, self.dtype = tuple(shape), dtype

    def stride(self, i):
        return math.prod(self.shape[i + 1:])

    def to(self, dtype):
        return FakeTensor(self.shape, dtype)

    def float(self):
        return FakeTensor(self.shape)

    def t(self):
        return FakeTensor(self.shape[::-1], self.dtype)

    def transpose(self, i, j):
        s = list(self.shape)
        s[i], s[j] = s[j], s[i]
        return FakeTensor(s, self.dtype)

    def view(self, *shape):
        return FakeTensor(shape, self.dtype)

    def __matmul__(self, other):
        return FakeTensor(self.shape[:-1] + other.shape[-1:])

    def __mul__(self, other):
        return self

    __sub__ = __add__ = __truediv__ = __mul__

    def __getitem__(self, key):
        return self

    def __setitem__(self, key, value):
        pass

    def zero_(self):
        return self

    def abs(self):
        return self

    def max(self):
        return FakeTensor(())

    def item(self):
        return 0.0


class FakeKernel:
    """A @triton.jit function: its launch binds the arguments to the
    kernel's own signature (as Triton does) and returns a compiled kernel."""

    def __init__(self, fn):
        self.fn, self.launches = fn, []

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            options = {k: kwargs.pop(k) for k in ("num_warps", "num_stages")}
            inspect.signature(self.fn).bind(*args, **kwargs)  # TypeError on a mismatch
            self.launches.append((grid, options))
            return types.SimpleNamespace(metadata=types.SimpleNamespace(shared=1024), n_regs=96,
                                         n_spills=0)
        return launch


def fake_gpu_stack():
    """Modules standing for torch and triton (3.6) in sys.modules."""
    def module(name, **attrs):
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        return m
    torch = module("torch", __version__="2.11.0-fake", float16="float16", float32="float32",
                   bfloat16="bfloat16", float8_e4m3fn="float8_e4m3fn",
                   manual_seed=lambda seed: None,
                   randn=lambda shape, device=None, dtype="float32": FakeTensor(shape, dtype),
                   empty=lambda shape, device=None, dtype="float32": FakeTensor(shape, dtype),
                   empty_like=lambda t, dtype=None: FakeTensor(t.shape, dtype or t.dtype),
                   softmax=lambda t, dim: t, version=types.SimpleNamespace(cuda="12.8"))
    torch.nn = types.SimpleNamespace(functional=types.SimpleNamespace(layer_norm=lambda *a: a[0]))
    torch.cuda = types.SimpleNamespace(
        is_available=lambda: True, synchronize=lambda: None, empty_cache=lambda: None,
        get_device_properties=lambda i: types.SimpleNamespace(name="Fake H200",
                                                              multi_processor_count=132))
    language = module("triton.language", constexpr=object)
    language.__getattr__ = lambda name: object
    desc = module("triton.tools.tensor_descriptor", TensorDescriptor=types.SimpleNamespace(
        from_tensor=lambda t, block: (t, block) if len(block) == len(t.shape) else 1 / 0))
    triton = module("triton", __version__="3.6.0", jit=FakeKernel,
                    cdiv=lambda a, b: (a + b - 1) // b, language=language,
                    testing=module("triton.testing", do_bench=lambda fn, **kw: (fn(), 1.0)[1]))
    triton.tools = module("triton.tools", tensor_descriptor=desc)
    return {"torch": torch, "triton": triton, "triton.language": language,
            "triton.testing": triton.testing, "triton.tools": triton.tools,
            "triton.tools.tensor_descriptor": desc}


class GpuSideOnFakes(unittest.TestCase):
    """zoo_gpu.py on stand-ins for torch and triton: every kernel's problem
    builds, its launch matches the kernel's signature, compile returns the
    facts and bench times the launch."""

    def test_every_problem_launches_its_kernel_with_matching_arguments(self):
        fakes = fake_gpu_stack()
        names = list(fakes) + ["zoo_gpu", "zoo_kernels", "kernels"]
        saved = {n: sys.modules.get(n) for n in names}
        try:
            for n in names:
                sys.modules.pop(n, None)
            sys.modules.update(fakes)
            import zoo_gpu
            gpu = zoo_gpu.TritonGpu(10, 25, lambda msg: self.fail(msg))
            self.assertEqual(gpu.meta()["sm_count"], 132)
            for kernel in kz.ZOO:
                built = gpu.compile(kernel, 2)
                self.assertEqual(built.facts["n_regs"], 96, kernel.name)
                self.assertEqual(built.facts["max_rel_err"], 0.0, kernel.name)
                self.assertGreater(built.facts["work"], 1e8, kernel.name)
                self.assertEqual(gpu.bench(built.run), 1.0)
                launches = getattr(sys.modules["zoo_kernels"], kernel.fn).launches
                self.assertEqual(launches[-1][1], {"num_warps": 8, "num_stages": 2}, kernel.name)
        finally:
            for n, m in saved.items():
                if m is None:
                    sys.modules.pop(n, None)
                else:
                    sys.modules[n] = m


class CommandLine(unittest.TestCase):
    def zoo(self, *args, env=None):
        return subprocess.run([sys.executable, os.path.join(HERE, "kernel_zoo.py"), *args],
                              capture_output=True, text=True, env=env)

    def test_bad_arguments_are_one_line_and_status_2(self):
        out = tempfile.mkdtemp()
        for args, want in ((["--out", out, "--kernels", "nope"], "unknown kernel 'nope'"),
                           (["--out", out, "--rounds", "5"], "at least 20 samples"),
                           (["--out", out, "--budget-s", "0"], "must be positive")):
            p = self.zoo(*args)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
            self.assertIn(want, p.stderr)

    def test_without_triton_it_says_so_in_one_line(self):
        # A Python that cannot import zoo_gpu's dependencies: shadow torch.
        shadow = tempfile.mkdtemp()
        with open(os.path.join(shadow, "torch.py"), "w") as f:
            f.write("raise ImportError('No module named torch (shadowed by the test)')\n")
        env = dict(os.environ, PYTHONPATH=shadow)
        p = self.zoo("--out", tempfile.mkdtemp(), env=env)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("needs Triton 3.6 and PyTorch", p.stderr)


if __name__ == "__main__":
    unittest.main()
