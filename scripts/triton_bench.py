"""The bench a campaign worker runs on a GPU (campaign_worker.py; Triton 3.6
and PyTorch): the shared kernels' problems (triton_schedule.Problem) or a
user's, compiled with Triton's own schedule or through the stages hook with
an export, checked against the reference, and timed with do_bench.

A user's problem (docs/TTGIR.md, "Any Triton kernel") is "FILE.py:NAME",
NAME(torch, triton, stages) returning an object with
  jit_fn     the kernel's Python function (kernel.fn of a @triton.jit kernel),
  launch(f)  launches the JIT function f on the problem's inputs and returns
             what the launch returns (the compiled kernel),
  out        the output tensor the launch writes,
  reference()  the expected output (a tensor),
  flops      (optional) useful floating-point operations of one launch.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import triton_schedule as ts  # noqa: E402

WARMUP_MS = int(os.environ.get("TILESCHED_BENCH_WARMUP_MS", "5"))
REP_MS = int(os.environ.get("TILESCHED_BENCH_REP_MS", "20"))


class Variant:
    def __init__(self, run, compiled, abs_err, rel_err, ops_moved):
        self.run, self.abs_err, self.rel_err, self.ops_moved = run, abs_err, rel_err, ops_moved
        self.shared_bytes = compiled.metadata.shared
        self.n_regs, self.n_spills = compiled.n_regs, compiled.n_spills


class TritonBench:
    def __init__(self):
        self.torch, self.triton = ts.need_gpu_stack()
        self.kernels_dir = os.environ.get("TILESCHED_KERNELS_PY_DIR",
                                          os.path.join(HERE, "..", "generators", "testdata", "ttgir"))

    def env(self):
        return {"device": self.torch.cuda.get_device_name(), "triton": self.triton.__version__,
                "torch": self.torch.__version__}

    def problem(self, kernel, stages, spec):
        if spec:
            from campaign_worker import load_object
            return load_object(spec)(self.torch, self.triton, stages)
        return ts.Problem(self.torch, self.triton, ts.load_kernels(self.kernels_dir), kernel, stages)

    def compile(self, problem, export):
        """export None: Triton's own, no hook; {}: through the hook, unchanged."""
        note = {}
        hook = None if export is None else ts.make_hook(export or None, None, "", note)
        run, compiled, abs_err, rel_err = ts.compile_variant(self.torch, self.triton, problem, hook)
        return Variant(run, compiled, abs_err, rel_err, note.get("ops_moved", ""))

    def sample(self, run):
        return self.triton.testing.do_bench(run, warmup=WARMUP_MS, rep=REP_MS,
                                            return_mode="median")
