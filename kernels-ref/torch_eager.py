"""The "eager" reference of BENCHMARKS.md: SIGReg forward written like LeJEPA's library.

Every step is a separate PyTorch op, as in the original code (and the region
list of docs/CONTRACT.md section 7):

    A      = normalize(randn(D, S, generator), dim=0)      # or a given A
    y      = x @ A                                          # GEMM in x's dtype
    args   = y.unsqueeze(-1) * t                            # [.., N, S, P] materialized
    cos_m  = cos(args).mean(-3); sin_m = sin(args).mean(-3) # batch mean
    (all-reduce mean of cos_m, sin_m across ranks)
    stats  = ((cos_m - phi)^2 + sin_m^2) @ w * N_global
    stats  = clip(stats); loss = stats.mean()

x is [N, D] or [V, N, D] in bf16, f16 or f32; everything after the GEMM is f32.
Standalone: depends on torch only.
"""

from __future__ import annotations

import math
from typing import Callable, Optional

import torch

__all__ = ["integration_tensors", "make_projection", "SIGRegEager", "sigreg_eager"]


def integration_tensors(num_points: int = 17, t_max: float = 3.0, device=None, dtype=torch.float32):
    """t_p = p*dt, phi_p = exp(-t_p^2/2), trapezoid weights doubled for symmetry.

    Computed in float64 on the host, then cast (f32 by default).
    """
    P = int(num_points)
    if P < 3 or P % 2 == 0:
        raise ValueError(f"num_points must be odd and >= 3, got {num_points}")
    dt = float(t_max) / (P - 1)
    t = [p * dt for p in range(P)]
    phi = [math.exp(-0.5 * v * v) for v in t]
    w = [(1.0 if p in (0, P - 1) else 2.0) * dt * phi[p] for p in range(P)]
    mk = lambda a: torch.tensor(a, dtype=torch.float64).to(device=device, dtype=dtype)  # noqa: E731
    return mk(t), mk(phi), mk(w)


def make_projection(D: int, num_slices: int, generator: Optional[torch.Generator] = None,
                    device=None) -> torch.Tensor:
    """randn [D, S] in f32 from ``generator`` (on ``device``), columns L2-normalized."""
    A = torch.randn((D, num_slices), generator=generator, device=device, dtype=torch.float32)
    return torch.nn.functional.normalize(A, p=2, dim=0)


def sigreg_eager(x: torch.Tensor, A: Optional[torch.Tensor] = None, *, num_slices: Optional[int] = None,
                 num_points: int = 17, t_max: float = 3.0, clip_mode: str = "none", clip_value: float = 0.0,
                 reduction: str = "mean", generator: Optional[torch.Generator] = None, world_size: int = 1,
                 all_reduce: Optional[Callable[[torch.Tensor], torch.Tensor]] = None,
                 integration: Optional[tuple] = None) -> torch.Tensor:
    """Eager SIGReg forward. Returns a scalar (mean/sum) or T [S] / [V, S] (none).

    A: [D, S] projection; when None it is drawn with ``make_projection`` from
    ``generator`` (``num_slices`` required). The GEMM runs in x's dtype (A is cast).
    all_reduce: callable returning the mean over ranks of its argument (DDP);
    N_global = N * world_size. integration: precomputed (t, phi, w) f32 tensors.
    """
    if clip_mode not in ("none", "zero_below", "clamp_min"):
        raise ValueError(f"unknown clip_mode {clip_mode!r}")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"unknown reduction {reduction!r}")
    if A is None:
        if num_slices is None:
            raise ValueError("num_slices is required when A is not given")
        A = make_projection(x.shape[-1], num_slices, generator=generator, device=x.device)
    t, phi, w = integration if integration is not None else integration_tensors(num_points, t_max, x.device)

    y = x @ A.to(x.dtype)                          # [.., N, S]
    args = y.unsqueeze(-1).float() * t             # [.., N, S, P]
    cos_mean = torch.cos(args).mean(dim=-3)        # [.., S, P]
    sin_mean = torch.sin(args).mean(dim=-3)
    if all_reduce is not None:
        cos_mean = all_reduce(cos_mean)
        sin_mean = all_reduce(sin_mean)
    n_global = x.shape[-2] * int(world_size)
    squared_error = (cos_mean - phi).square() + sin_mean.square()
    stats = torch.matmul(squared_error, w) * float(n_global)   # [.., S]
    if clip_mode == "clamp_min":
        stats = torch.clamp(stats, min=float(clip_value))
    elif clip_mode == "zero_below":
        stats = torch.where(stats < clip_value, torch.zeros_like(stats), stats)
    if reduction == "mean":
        return stats.mean()
    if reduction == "sum":
        return stats.sum()
    return stats


class SIGRegEager(torch.nn.Module):
    """Module form: holds the f32 integration buffers, draws A per step from a seeded generator."""

    def __init__(self, num_slices: int = 1024, num_points: int = 17, t_max: float = 3.0,
                 clip_mode: str = "none", clip_value: float = 0.0, reduction: str = "mean"):
        super().__init__()
        t, phi, w = integration_tensors(num_points, t_max)
        self.register_buffer("t", t)
        self.register_buffer("phi", phi)
        self.register_buffer("weights", w)
        self.num_slices = num_slices
        self.clip_mode, self.clip_value, self.reduction = clip_mode, clip_value, reduction

    def forward(self, x: torch.Tensor, step: int = 0, A: Optional[torch.Tensor] = None,
                world_size: int = 1, all_reduce=None) -> torch.Tensor:
        gen = None
        if A is None:
            gen = torch.Generator(device=x.device)
            gen.manual_seed(int(step))
        return sigreg_eager(x, A, num_slices=self.num_slices, clip_mode=self.clip_mode,
                            clip_value=self.clip_value, reduction=self.reduction, generator=gen,
                            world_size=world_size, all_reduce=all_reduce,
                            integration=(self.t, self.phi, self.weights))
