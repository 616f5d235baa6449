"""The kernel zoo's GPU side (kernel_zoo.py drives it): each kernel's problem
(sizes, inputs, launch, PyTorch reference, work), compiling a configuration
with Triton's IR dumps captured, and timing a launch. Importing it imports
Triton and PyTorch; kernel_zoo_test.py replaces it with a fake."""
import collections
import os
import sys
import tempfile

import torch
import triton
import triton.testing
from triton.tools.tensor_descriptor import TensorDescriptor

import zoo_dumps
import zoo_kernels

Built = collections.namedtuple("Built", "run dumps facts")


class StderrCapture:
    """Everything written to file descriptor 2 (MLIR's IR printer writes
    there) while the block runs."""

    def __enter__(self):
        sys.stderr.flush()
        self.saved = os.dup(2)
        self.file = tempfile.TemporaryFile()
        os.dup2(self.file.fileno(), 2)
        self.text = ""
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.file.seek(0)
        self.text = self.file.read().decode("utf-8", errors="replace")
        self.file.close()
        return False


def randn(shape, dtype, scale=1.0):
    return (torch.randn(shape, device="cuda", dtype=torch.float32) * scale).to(dtype)


class Problem:
    """A kernel's launch at the zoo's sizes: `launch(stages)` runs it once
    (returning Triton's compiled kernel), `error()` compares the output with
    PyTorch's, `work` is its FLOPs (bytes moved for the row reductions)."""

    def __init__(self, kernel, sm_count):
        torch.manual_seed(0)
        self.kernel, self.p, self.sms = kernel, kernel.params, sm_count
        self.fn = getattr(zoo_kernels, kernel.fn)
        getattr(self, "_setup_" + kernel.name)()
        self._ref = None

    def launch(self, stages):
        return self._launch(stages)

    def error(self):
        self.out.zero_()
        self.launch(self._stages)
        torch.cuda.synchronize()
        if self._ref is None:
            self._ref = self.reference().float()
        diff = (self.out.float() - self._ref).abs().max().item()
        return diff, diff / max(self._ref.abs().max().item(), 1e-30)

    def _rows(self, reference):
        m, n = 16384, 8192
        self.x = randn((m, n), torch.float16)
        self.out = torch.empty_like(self.x)
        self.work = 3.0 * m * n * 2  # two reads of x, one write of y
        self.reference = reference
        self.grid = (m,)

    def _setup_softmax(self):
        self._rows(lambda: torch.softmax(self.x.float(), dim=-1))
        x, y = self.x, self.out
        self._launch = lambda s: self.fn[self.grid](
            x, y, x.shape[1], x.stride(0), BLOCK=self.p["BLOCK"], STAGES=s,
            num_warps=self.kernel.warps, num_stages=s)

    def _setup_layernorm(self):
        self._rows(lambda: torch.nn.functional.layer_norm(
            self.x.float(), (self.x.shape[1],), self.w.float(), self.b.float(), 1e-5))
        self.w = randn((self.x.shape[1],), torch.float16)
        self.b = randn((self.x.shape[1],), torch.float16)
        x, y = self.x, self.out
        self._launch = lambda s: self.fn[self.grid](
            x, y, self.w, self.b, x.shape[1], x.stride(0), 1e-5, BLOCK=self.p["BLOCK"], STAGES=s,
            num_warps=self.kernel.warps, num_stages=s)

    def _gemm(self, m, n, k, dtype, b_nk=False, out_dtype=torch.float16, scale=1.0):
        self.a = randn((m, k), dtype, scale)
        self.b = randn((n, k) if b_nk else (k, n), dtype, scale)
        self.out = torch.empty((m, n), device="cuda", dtype=out_dtype)
        self.work = 2.0 * m * n * k
        bt = self.b.float().t() if b_nk else self.b.float()
        self.reference = lambda: self.a.float() @ bt
        return self.a, self.b, self.out

    def _setup_matmul(self):
        a, b, c = self._gemm(8192, 8192, 8192, torch.float16)
        bm, bn, bk = self.p["BM"], self.p["BN"], self.p["BK"]
        grid = (triton.cdiv(a.shape[0], bm) * triton.cdiv(b.shape[1], bn),)
        self._launch = lambda s: self.fn[grid](
            a, b, c, a.shape[0], b.shape[1], a.shape[1], a.stride(0), a.stride(1), b.stride(0),
            b.stride(1), c.stride(0), c.stride(1), BM=bm, BN=bn, BK=bk, STAGES=s,
            num_warps=self.kernel.warps, num_stages=s)

    def _setup_matmul_splitk(self):
        a, b, c = self._gemm(2048, 2048, 32768, torch.float16, out_dtype=torch.float32)
        bm, bn, bk, split = self.p["BM"], self.p["BN"], self.p["BK"], self.p["SPLIT"]
        grid = (triton.cdiv(2048, bm) * triton.cdiv(2048, bn), split)
        self._launch = lambda s: self.fn[grid](
            a, b, c, 2048, 2048, 32768, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
            c.stride(0), c.stride(1), BM=bm, BN=bn, BK=bk, SPLIT=split, STAGES=s,
            num_warps=self.kernel.warps, num_stages=s)

    def _descriptors(self, b_block):
        bm, bn, bk = self.p["BM"], self.p["BN"], self.p["BK"]
        return (TensorDescriptor.from_tensor(self.a, [bm, bk]),
                TensorDescriptor.from_tensor(self.b, b_block),
                TensorDescriptor.from_tensor(self.out, [bm, bn]))

    def _tma_gemm(self, dtype, b_nk, out_dtype, scale=1.0):
        self._gemm(8192, 8192, 8192, dtype, b_nk=b_nk, out_dtype=out_dtype, scale=scale)
        ad, bd, cd = self._descriptors([self.p["BN"], self.p["BK"]] if b_nk
                                       else [self.p["BK"], self.p["BN"]])
        grid = (triton.cdiv(8192, self.p["BM"]) * triton.cdiv(8192, self.p["BN"]),)
        self._launch = lambda s: self.fn[grid](
            ad, bd, cd, 8192, 8192, 8192, BM=self.p["BM"], BN=self.p["BN"], BK=self.p["BK"],
            B_NK=b_nk, BF16=out_dtype == torch.bfloat16, STAGES=s, num_warps=self.kernel.warps,
            num_stages=s)

    def _setup_matmul_tma(self):
        self._tma_gemm(torch.bfloat16, False, torch.bfloat16)

    def _setup_matmul_tma_fp8(self):
        self._tma_gemm(torch.float8_e4m3fn, True, torch.float16, scale=0.5)

    def _setup_matmul_tma_persistent(self):
        self._gemm(8192, 8192, 8192, torch.float16, b_nk=True)
        ad, bd, cd = self._descriptors([self.p["BN"], self.p["BK"]])
        tiles = triton.cdiv(8192, self.p["BM"]) * triton.cdiv(8192, self.p["BN"])
        grid = (min(self.sms, tiles),)
        self._launch = lambda s: self.fn[grid](
            ad, bd, cd, 8192, 8192, 8192, BM=self.p["BM"], BN=self.p["BN"], BK=self.p["BK"],
            NUM_SMS=self.sms, STAGES=s, num_warps=self.kernel.warps, num_stages=s)

    def _attention_inputs(self):
        z, n_ctx, head = 64, 4096, self.p["HEAD"]
        self.q, self.k, self.v = (randn((z, n_ctx, head), torch.float16) for _ in range(3))
        self.out = torch.empty_like(self.q)
        self.scale = head ** -0.5
        self.work = 4.0 * z * n_ctx * n_ctx * head
        self.reference = self._attention_ref
        return z, n_ctx, head

    def _attention_ref(self):
        out = torch.empty_like(self.out, dtype=torch.float32)
        for h in range(0, self.q.shape[0], 8):
            q, k, v = (x[h:h + 8].float() for x in (self.q, self.k, self.v))
            out[h:h + 8] = torch.softmax(q @ k.transpose(1, 2) * self.scale, dim=-1) @ v
        return out

    def _setup_attention(self):
        z, n_ctx, head = self._attention_inputs()
        q, k, v, o = self.q, self.k, self.v, self.out
        grid = (n_ctx // self.p["BM"], z)
        self._launch = lambda s: self.fn[grid](
            q, k, v, o, self.scale, q.stride(0), q.stride(1), n_ctx, HEAD=head, BM=self.p["BM"],
            BN=self.p["BN"], STAGES=s, num_warps=self.kernel.warps, num_stages=s)

    def _setup_attention_tma(self):
        z, n_ctx, head = self._attention_inputs()
        flat = [x.view(z * n_ctx, head) for x in (self.q, self.k, self.v, self.out)]
        qd = TensorDescriptor.from_tensor(flat[0], [self.p["BM"], head])
        kd, vd = (TensorDescriptor.from_tensor(x, [self.p["BN"], head]) for x in flat[1:3])
        od = TensorDescriptor.from_tensor(flat[3], [self.p["BM"], head])
        grid = (n_ctx // self.p["BM"], z)
        self._launch = lambda s: self.fn[grid](
            qd, kd, vd, od, self.scale, n_ctx, HEAD=head, BM=self.p["BM"], BN=self.p["BN"],
            STAGES=s, WS=False, num_warps=self.kernel.warps, num_stages=s)


class TritonGpu:
    """What kernel_zoo.run_zoo asks of a GPU: device facts, compile (with
    the dumps, shared memory, registers and error) and bench."""

    def __init__(self, warmup, rep, die):
        if not triton.__version__.startswith("3.6"):
            die(f"needs Triton 3.6 (this Python has {triton.__version__})")
        if not torch.cuda.is_available():
            die("needs a CUDA GPU (torch.cuda.is_available() is false)")
        props = torch.cuda.get_device_properties(0)
        self.device = {"name": props.name, "sm_count": props.multi_processor_count}
        self.warmup, self.rep, self._problem = warmup, rep, None

    def meta(self):
        return {"gpu": self.device["name"], "sm_count": self.device["sm_count"],
                "triton": triton.__version__, "torch": torch.__version__,
                "cuda": torch.version.cuda}

    def problem(self, kernel):
        if self._problem is None or self._problem.kernel.name != kernel.name:
            self._problem = None
            torch.cuda.empty_cache()
            self._problem = Problem(kernel, self.device["sm_count"])
        return self._problem

    def compile(self, kernel, stages):
        problem = self.problem(kernel)
        with StderrCapture() as cap:
            compiled = problem.launch(stages)
            torch.cuda.synchronize()
        problem._stages = stages
        abs_err, rel_err = problem.error()
        facts = {"shared_bytes": compiled.metadata.shared, "n_regs": compiled.n_regs,
                 "n_spills": compiled.n_spills, "max_abs_err": round(abs_err, 6),
                 "max_rel_err": round(rel_err, 6), "work": problem.work}
        return Built(lambda: problem.launch(stages), zoo_dumps.split_dumps(cap.text), facts)

    def bench(self, run):
        return triton.testing.do_bench(run, warmup=self.warmup, rep=self.rep,
                                       return_mode="median")

    @staticmethod
    def out_of_resources(err):
        return "OutOfResources" in type(err).__name__ or "out of resource" in str(err).lower()
