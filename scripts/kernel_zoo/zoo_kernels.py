"""The kernel zoo's Triton kernels (Triton 3.6, NVIDIA Hopper): one of each
class the importer and the Hopper model meet (README.md). Every main loop is
a `tl.range(..., num_stages=STAGES)` so that the zoo sweeps Triton's
pipeline depth; zoo_gpu.py holds the launches, sizes and references. The
pointer matmul and both attention kernels are the shared dumps' own
(generators/testdata/ttgir/kernels.py), at other tiles and head sizes."""
import os
import sys

import triton
import triton.language as tl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "generators", "testdata", "ttgir"))
from kernels import attention, attention_tma, matmul  # noqa: E402,F401


@triton.jit
def softmax(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr, STAGES: tl.constexpr):
    # A row reduction in two loops: an online max and sum, then the store.
    row = tl.program_id(0)
    x_row = x_ptr + row * stride
    y_row = y_ptr + row * stride
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for off in tl.range(0, n_cols, BLOCK, num_stages=STAGES):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        s = s * tl.exp(m - m_new) + tl.exp(x - m_new)
        m = m_new
    row_max = tl.max(m, 0)
    total = tl.sum(s * tl.exp(m - row_max), 0)
    for off in tl.range(0, n_cols, BLOCK, num_stages=STAGES):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=float("-inf")).to(tl.float32)
        tl.store(y_row + cols, (tl.exp(x - row_max) / total).to(tl.float16), mask=mask)


@triton.jit
def layernorm(x_ptr, y_ptr, w_ptr, b_ptr, n_cols, stride, eps, BLOCK: tl.constexpr,
              STAGES: tl.constexpr):
    # Two loops over the row: statistics, then the normalized store.
    row = tl.program_id(0)
    x_row = x_ptr + row * stride
    y_row = y_ptr + row * stride
    acc = tl.zeros([BLOCK], tl.float32)
    acc2 = tl.zeros([BLOCK], tl.float32)
    for off in tl.range(0, n_cols, BLOCK, num_stages=STAGES):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        acc += x
        acc2 += x * x
    mean = tl.sum(acc, 0) / n_cols
    var = tl.sum(acc2, 0) / n_cols - mean * mean
    rstd = 1.0 / tl.sqrt(var + eps)
    for off in tl.range(0, n_cols, BLOCK, num_stages=STAGES):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=mask).to(tl.float32)
        tl.store(y_row + cols, ((x - mean) * rstd * w + b).to(tl.float16), mask=mask)


@triton.jit
def matmul_splitk(a, b, c, M, N, K, sam, sak, sbk, sbn, scm, scn, BM: tl.constexpr,
                  BN: tl.constexpr, BK: tl.constexpr, SPLIT: tl.constexpr, STAGES: tl.constexpr):
    # Split-K: SPLIT programs share a tile, each a slice of K, added atomically.
    pid = tl.program_id(0)
    pk = tl.program_id(1)
    npn = tl.cdiv(N, BN)
    pm = pid // npn
    pn = pid % npn
    om = pm * BM + tl.arange(0, BM)
    on = pn * BN + tl.arange(0, BN)
    k_per = tl.cdiv(K, SPLIT * BK)
    ok = pk * k_per * BK + tl.arange(0, BK)
    ap = a + om[:, None] * sam + ok[None, :] * sak
    bp = b + ok[:, None] * sbk + on[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, k_per, num_stages=STAGES):
        x = tl.load(ap)
        y = tl.load(bp)
        acc = tl.dot(x, y, acc)
        ap += BK * sak
        bp += BK * sbk
    tl.atomic_add(c + scm * om[:, None] + scn * on[None, :], acc)


@triton.jit
def matmul_tma(ad, bd, cd, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               B_NK: tl.constexpr, BF16: tl.constexpr, STAGES: tl.constexpr):
    # TMA loads of A (MxK) and B: KxN, or NxK (B_NK, K-major: how wgmma
    # reads fp8); bf16 or fp16 out.
    pid = tl.program_id(0)
    npn = tl.cdiv(N, BN)
    pm = pid // npn
    pn = pid % npn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), num_stages=STAGES):
        x = ad.load([pm * BM, k * BK])
        if B_NK:
            acc = tl.dot(x, bd.load([pn * BN, k * BK]).T, acc)
        else:
            acc = tl.dot(x, bd.load([k * BK, pn * BN]), acc)
    if BF16:
        cd.store([pm * BM, pn * BN], acc.to(tl.bfloat16))
    else:
        cd.store([pm * BM, pn * BN], acc.to(tl.float16))


@triton.jit
def matmul_tma_persistent(ad, bd, cd, M, N, K, BM: tl.constexpr, BN: tl.constexpr,
                          BK: tl.constexpr, NUM_SMS: tl.constexpr, STAGES: tl.constexpr):
    # Persistent: NUM_SMS programs walk the tiles; flatten=True lets Triton
    # fuse the tile loop into the k loop (an scf.if prologue and epilogue).
    start = tl.program_id(0)
    npm = tl.cdiv(M, BM)
    npn = tl.cdiv(N, BN)
    for tile in tl.range(start, npm * npn, NUM_SMS, flatten=True, num_stages=STAGES):
        pm = tile // npn
        pn = tile % npn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(tl.cdiv(K, BK)):
            x = ad.load([pm * BM, k * BK])
            y = bd.load([pn * BN, k * BK])
            acc = tl.dot(x, y.T, acc)
        cd.store([pm * BM, pn * BN], acc.to(tl.float16))


