"""PyTorch references (torch is imported lazily: this module imports without it).

- :func:`loss_f64`: float64 PyTorch implementation of docs/CONTRACT.md section 1 for autograd
  checks (every knob; a list of per-rank shards simulates the all-reduce mean).
- :func:`sigreg_eager`: the LeJEPA-style eager implementation: materializes the
  [..., N, S, P] arguments, cos and sin like the original library, computes in
  float32 after the GEMM (which runs in the dtype of x).
"""

from __future__ import annotations

import functools
from typing import Optional


def _torch():
    import torch  # noqa: PLC0415 (lazy on purpose)

    return torch


def integration_grid_torch(num_points=17, t_max=3.0, device=None, dtype=None):
    """(t, phi, w) as torch tensors, computed in float64 then cast."""
    from .reference import integration_grid

    torch = _torch()
    dtype = dtype or torch.float64
    t, phi, w = integration_grid(num_points, t_max)
    return tuple(torch.tensor(a, dtype=dtype, device=device) for a in (t, phi, w))


def _clip(T, clip_mode: str, clip_value: float):
    torch = _torch()
    if clip_mode == "none":
        return T
    if clip_mode == "zero_below":
        return torch.where(T < clip_value, torch.zeros_like(T), T)
    if clip_mode == "clamp_min":
        return torch.clamp(T, min=clip_value)
    raise ValueError(f"unknown clip_mode {clip_mode!r}")


def _reduce(T, reduction: str):
    if reduction == "mean":
        return T.mean()
    if reduction == "sum":
        return T.sum()
    if reduction == "none":
        return T
    raise ValueError(f"unknown reduction {reduction!r}")


def loss_f64(x, A, *, num_points=17, t_max=3.0, clip_mode="none", clip_value=0.0,
             reduction="mean", world_size=1):
    """Float64 PyTorch SIGReg; differentiable in x (A is detached).

    ``x``: tensor [N, D] or [V, N, D], or a list of such shards (one per rank;
    their ECFs are averaged, N_global = N * len(shards)).
    """
    torch = _torch()
    shards = list(x) if isinstance(x, (list, tuple)) else [x]
    W = len(shards) if isinstance(x, (list, tuple)) else int(world_size)
    A = A.detach().to(torch.float64)
    t, phi, w = integration_grid_torch(num_points, t_max, device=A.device)
    cs, ss = [], []
    for sh in shards:
        sh = sh.to(torch.float64)
        if sh.dim() == 2:
            sh = sh.unsqueeze(0)
        y = sh @ A  # [V, N, S]
        arg = y.unsqueeze(-1) * t  # [V, N, S, P]
        cs.append(torch.cos(arg).mean(dim=1))
        ss.append(torch.sin(arg).mean(dim=1))
    c = torch.stack(cs).mean(dim=0)
    s = torch.stack(ss).mean(dim=0)
    N = shards[0].shape[-2]
    T = float(N * W) * (((c - phi) ** 2 + s ** 2) @ w)  # [V, S]
    T = _clip(T, clip_mode, clip_value)
    if shards[0].dim() == 2:
        T = T[0]
    return _reduce(T, reduction)


@functools.lru_cache(maxsize=64)
def _grid_f32(num_points, t_max, device):
    """integration_grid_torch in f32 on ``device``, made once per (P, t_max, device): a host to
    device copy per call cannot be captured in a CUDA graph (the eager step replayed from a
    graph, docs/TORCH.md's benchmark)."""
    return integration_grid_torch(num_points, t_max, device=device, dtype=_torch().float32)


def make_projection(D: int, num_slices: int, generator=None, device=None, dtype=None):
    """LeJEPA-style projection: randn [D, S] (float32) then L2-normalize columns."""
    torch = _torch()
    A = torch.randn((D, num_slices), generator=generator, device=device,
                    dtype=dtype or torch.float32)
    return torch.nn.functional.normalize(A, p=2, dim=0)


def sigreg_eager(x, A=None, *, num_slices: Optional[int] = None, num_points=17, t_max=3.0,
                 clip_mode="none", clip_value=0.0, reduction="mean", generator=None,
                 world_size=1, all_reduce=None):
    """LeJEPA-style eager forward. x: [N, D] or [V, N, D] (bf16/f16/f32).

    Materializes [V, N, S, P] (args, cos, sin) like the original library.
    ``all_reduce``: optional callable applied to the [.., S, P] cos/sin means
    (must return the mean over ranks); N_global = N * world_size.
    """
    torch = _torch()
    D = x.shape[-1]
    if A is None:
        if num_slices is None:
            raise ValueError("num_slices is required when A is not given")
        A = make_projection(D, num_slices, generator=generator, device=x.device)
    t, phi, w = _grid_f32(num_points, float(t_max), x.device)
    y = x @ A.to(x.dtype)  # GEMM in the input dtype
    args = y.unsqueeze(-1).float() * t  # [..., N, S, P]
    cos_mean = torch.cos(args).mean(dim=-3)
    sin_mean = torch.sin(args).mean(dim=-3)
    if all_reduce is not None:
        cos_mean = all_reduce(cos_mean)
        sin_mean = all_reduce(sin_mean)
    n_global = x.shape[-2] * int(world_size)
    err = (cos_mean - phi).square() + sin_mean.square()
    stats = torch.matmul(err, w) * float(n_global)
    stats = _clip(stats, clip_mode, clip_value)
    return _reduce(stats, reduction)
