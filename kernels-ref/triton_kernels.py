"""The two hand-written Triton kernels of the write-up the project grew from
(docs/CONTRACT.md section 7), written from its description.

Pipeline (``sigreg_triton``), the "triton-2k" column of BENCHMARKS.md:

    y = x @ A                      cuBLAS GEMM in x's dtype          [V, N, S]
    cos_mean, sin_mean = trig(y)   kernel 1: trig reduction (fp32)   [V, S, P]
    (optional all-reduce mean across ranks: the synchronization boundary)
    stats = epilogue(...)          kernel 2: epilogue (fp32)         [V, S]
    loss = stats.mean()            (or sum, or stats itself)

Kernel 1, trig reduction. One program per block of BLOCK_S slices of one
view; inside it a [BLOCK_S, BLOCK_P] tile: one row per slice, one lane per
integration point (BLOCK_P = the power of two >= P, extra lanes masked). The
program loops over the batch one sample at a time, computing
cos(t_p * y[n, s]) and sin(t_p * y[n, s]) in fp32 and accumulating in fp32.
The batch is walked in chunks of CHUNK_N samples: each chunk is summed into a
fresh partial sum which is then added to the running total (same order every
run, so results are deterministic; the two-level sum keeps the fp32 rounding
error of long batches small). BLOCK_S=1 with num_warps=1 is exactly the
write-up's "one warp per slice"; BLOCK_S=32, "one program per 32 slices
looping over the batch", is the default and the "triton-2k" variant.

Kernel 2, epilogue. One program (one warp) per slice, one lane per
integration point: err_p = (cos_mean - phi_p)^2 + sin_mean^2, then
stats = N_global * sum_p w_p err_p (a warp reduction), then the clip
(clamp_min: max(T, clip); zero_below: T < clip -> 0). fp32 throughout,
the global batch size is a scalar argument.
"""

from __future__ import annotations

import math
from typing import Callable, Optional

import torch
import triton
import triton.language as tl

__all__ = ["trig_reduce", "epilogue", "integration_tensors", "project", "ecf_triton", "sigreg_triton",
           "CLIP_MODES"]

CLIP_MODES = {"none": 0, "zero_below": 1, "clamp_min": 2}


@triton.jit
def _trig_reduce_kernel(
    y_ptr, t_ptr, cos_ptr, sin_ptr,
    N, S, P,
    stride_yv, stride_yn, stride_ys,
    BLOCK_S: tl.constexpr, BLOCK_P: tl.constexpr, CHUNK_N: tl.constexpr,
):
    pid_s = tl.program_id(0)          # block of slices
    pid_v = tl.program_id(1)          # view
    offs_s = pid_s * BLOCK_S + tl.arange(0, BLOCK_S)   # [BLOCK_S]
    offs_p = tl.arange(0, BLOCK_P)                     # [BLOCK_P]
    mask_s = offs_s < S
    mask_p = offs_p < P

    t = tl.load(t_ptr + offs_p, mask=mask_p, other=0.0).to(tl.float32)   # [BLOCK_P]
    y_col = y_ptr + pid_v.to(tl.int64) * stride_yv + offs_s.to(tl.int64) * stride_ys  # [BLOCK_S] pointers

    acc_c = tl.zeros([BLOCK_S, BLOCK_P], dtype=tl.float32)
    acc_s = tl.zeros([BLOCK_S, BLOCK_P], dtype=tl.float32)
    for n0 in range(0, N, CHUNK_N):
        part_c = tl.zeros([BLOCK_S, BLOCK_P], dtype=tl.float32)
        part_s = tl.zeros([BLOCK_S, BLOCK_P], dtype=tl.float32)
        for i in range(CHUNK_N):
            n = n0 + i
            valid = n < N
            yv = tl.load(y_col + n.to(tl.int64) * stride_yn, mask=mask_s & valid, other=0.0).to(tl.float32)
            arg = yv[:, None] * t[None, :]                # [BLOCK_S, BLOCK_P]
            part_c += tl.where(valid, tl.cos(arg), 0.0)   # rows past the batch add nothing
            part_s += tl.where(valid, tl.sin(arg), 0.0)
        acc_c += part_c
        acc_s += part_s

    n_f = N * 1.0
    cos_mean = acc_c / n_f
    sin_mean = acc_s / n_f
    out = pid_v.to(tl.int64) * S * P + offs_s[:, None].to(tl.int64) * P + offs_p[None, :]
    mask = mask_s[:, None] & mask_p[None, :]
    tl.store(cos_ptr + out, cos_mean, mask=mask)
    tl.store(sin_ptr + out, sin_mean, mask=mask)


@triton.jit
def _epilogue_kernel(
    cos_ptr, sin_ptr, phi_ptr, w_ptr, out_ptr,
    P, n_global, clip_value,
    CLIP_MODE: tl.constexpr, BLOCK_P: tl.constexpr,
):
    row = tl.program_id(0)            # flattened (view, slice)
    offs_p = tl.arange(0, BLOCK_P)
    mask = offs_p < P
    base = row.to(tl.int64) * P
    c = tl.load(cos_ptr + base + offs_p, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(sin_ptr + base + offs_p, mask=mask, other=0.0).to(tl.float32)
    phi = tl.load(phi_ptr + offs_p, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + offs_p, mask=mask, other=0.0).to(tl.float32)
    d = c - phi
    term = (d * d + s * s) * w        # masked lanes: w = 0 -> 0
    stat = tl.sum(term, axis=0) * n_global
    if CLIP_MODE == 1:    # zero_below (LeJEPA library)
        stat = tl.where(stat < clip_value, 0.0, stat)
    elif CLIP_MODE == 2:  # clamp_min (the write-up's code)
        stat = tl.maximum(stat, clip_value)
    tl.store(out_ptr + row, stat)


# ---------------------------------------------------------------------------
# Host wrappers
# ---------------------------------------------------------------------------

def integration_tensors(num_points: int = 17, t_max: float = 3.0, device=None):
    """(t, phi, w) f32 tensors, computed in float64 on the host."""
    P = int(num_points)
    if P < 3 or P % 2 == 0:
        raise ValueError(f"num_points must be odd and >= 3, got {num_points}")
    dt = float(t_max) / (P - 1)
    t = [p * dt for p in range(P)]
    phi = [math.exp(-0.5 * v * v) for v in t]
    w = [(1.0 if p in (0, P - 1) else 2.0) * dt * phi[p] for p in range(P)]
    mk = lambda a: torch.tensor(a, dtype=torch.float64).to(device=device, dtype=torch.float32)  # noqa: E731
    return mk(t), mk(phi), mk(w)


def trig_reduce(y: torch.Tensor, t: torch.Tensor, *, block_s: int = 32, chunk_n: int = 32, num_warps: int = 4,
                out: Optional[tuple] = None):
    """Kernel 1. y: [V, N, S] (any float dtype, any strides); t: [P] f32.

    Returns (cos_mean, sin_mean), each [V, S, P] f32 contiguous (written into
    ``out`` when given, e.g. poisoned buffers in tests).
    """
    if y.dim() != 3:
        raise ValueError(f"y must be [V, N, S], got {tuple(y.shape)}")
    V, N, S = y.shape
    P = t.numel()
    if N < 1:
        raise ValueError("empty batch")
    t = t.to(device=y.device, dtype=torch.float32).contiguous()
    if out is None:
        cos_m = torch.empty((V, S, P), device=y.device, dtype=torch.float32)
        sin_m = torch.empty((V, S, P), device=y.device, dtype=torch.float32)
    else:
        cos_m, sin_m = out
        for o in out:
            assert o.shape == (V, S, P) and o.dtype == torch.float32 and o.is_contiguous()
    BLOCK_P = triton.next_power_of_2(P)
    grid = (triton.cdiv(S, block_s), V)
    _trig_reduce_kernel[grid](
        y, t, cos_m, sin_m, N, S, P,
        y.stride(0), y.stride(1), y.stride(2),
        BLOCK_S=block_s, BLOCK_P=BLOCK_P, CHUNK_N=chunk_n, num_warps=num_warps,
    )
    return cos_m, sin_m


def epilogue(cos_mean: torch.Tensor, sin_mean: torch.Tensor, phi: torch.Tensor, w: torch.Tensor,
             global_batch_size: int, clip_mode: str = "none", clip_value: float = 0.0,
             out: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Kernel 2. cos_mean, sin_mean: [..., S, P] (f32 or bf16). Returns stats [...] f32."""
    if clip_mode not in CLIP_MODES:
        raise ValueError(f"unknown clip_mode {clip_mode!r}")
    assert cos_mean.shape == sin_mean.shape
    P = cos_mean.shape[-1]
    lead = cos_mean.shape[:-1]
    c = cos_mean.contiguous()
    s = sin_mean.contiguous()
    rows = c.numel() // P
    if out is None:
        out = torch.empty(lead, device=c.device, dtype=torch.float32)
    else:
        assert out.shape == lead and out.dtype == torch.float32 and out.is_contiguous()
    phi = phi.to(device=c.device, dtype=torch.float32).contiguous()
    w = w.to(device=c.device, dtype=torch.float32).contiguous()
    BLOCK_P = triton.next_power_of_2(P)
    _epilogue_kernel[(rows,)](
        c, s, phi, w, out, P, float(global_batch_size), float(clip_value),
        CLIP_MODE=CLIP_MODES[clip_mode], BLOCK_P=BLOCK_P, num_warps=1,
    )
    return out


def project(x: torch.Tensor, A: torch.Tensor) -> torch.Tensor:
    """cuBLAS GEMM in x's dtype: [N, D] or [V, N, D] -> [V, N, S]."""
    x3 = x.unsqueeze(0) if x.dim() == 2 else x
    return torch.matmul(x3, A.to(x.dtype))


def ecf_triton(x: torch.Tensor, A: torch.Tensor, t: torch.Tensor, **kw):
    """Local part (before the all-reduce): GEMM + kernel 1 -> ([V, S, P], [V, S, P])."""
    return trig_reduce(project(x, A), t, **kw)


def sigreg_triton(x: torch.Tensor, A: torch.Tensor, *, num_points: int = 17, t_max: float = 3.0,
                  clip_mode: str = "none", clip_value: float = 0.0, reduction: str = "mean",
                  world_size: int = 1, all_reduce: Optional[Callable[[torch.Tensor], torch.Tensor]] = None,
                  integration: Optional[tuple] = None, block_s: int = 32, chunk_n: int = 32,
                  num_warps: int = 4) -> torch.Tensor:
    """cuBLAS GEMM + trig kernel + (all-reduce) + epilogue kernel + torch mean/sum.

    x: [N, D] or [V, N, D]; A: [D, S]. Returns a scalar, or T [S] / [V, S] for
    reduction='none'. all_reduce must return the mean over ranks; N_global =
    N * world_size.
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    t, phi, w = integration if integration is not None else integration_tensors(num_points, t_max, x.device)
    cos_m, sin_m = ecf_triton(x, A, t, block_s=block_s, chunk_n=chunk_n, num_warps=num_warps)
    if all_reduce is not None:
        cos_m = all_reduce(cos_m)
        sin_m = all_reduce(sin_m)
    stats = epilogue(cos_m, sin_m, phi, w, x.shape[-2] * int(world_size), clip_mode, clip_value)
    if x.dim() == 2:
        stats = stats[0]
    if reduction == "mean":
        return stats.mean()
    if reduction == "sum":
        return stats.sum()
    return stats
