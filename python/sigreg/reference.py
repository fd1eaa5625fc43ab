"""Float64 NumPy reference of SIGReg (docs/CONTRACT.md section 1), with every knob.

Shapes: ``x`` is ``[N, D]`` or ``[V, N, D]``; the projection ``A`` is
``[D, S]``. Nothing of size N*S*P is materialized: the ECF loops over the P
integration points, so the reference runs at the large anchor shape too.

Distributed mode. ``x`` may also be a list of per-rank shards (all of the
same shape); their ECFs are all-reduced (mean over ranks) exactly as in
docs/CONTRACT.md section 1.5, and ``N_global = N * W`` with ``W = len(shards)``.
With a single array and ``world_size = W > 1`` the local ECF is taken as the
global one (every rank holds the same statistics) and only ``N_global = N * W``
changes.

Gradient convention. :func:`gradient` returns the derivative of the (single,
global) loss with respect to each rank's ``x``: the formula of docs/CONTRACT.md
section 2, where ``N_global`` cancels. Autograd through
``torch.distributed.nn.functional.all_reduce`` (whose backward is again an
all-reduce sum) gives ``W`` times this on each rank; DDP's gradient averaging
over ranks then restores the exact gradient of the global loss for shared
parameters (the convention of docs/CONTRACT.md section 3). Pass
``convention="autograd_all_reduce"`` to get the per-rank autograd value.
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union

import numpy as np

__all__ = [
    "integration_grid",
    "make_projection",
    "ecf",
    "epps_pulley",
    "statistics",
    "loss",
    "gradient",
    "statistics_from_projected",
    "CLIP_MODES",
    "REDUCTIONS",
]

CLIP_MODES = ("none", "zero_below", "clamp_min")
REDUCTIONS = ("mean", "sum", "none")

ArrayOrShards = Union[np.ndarray, Sequence[np.ndarray]]


def integration_grid(num_points: int = 17, t_max: float = 3.0) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Points t_p, the Gaussian CF phi_p and the trapezoid weights w_p (float64)."""
    P = int(num_points)
    if P < 3 or P % 2 == 0:
        raise ValueError(f"num_points must be odd and >= 3, got {num_points}")
    t_max = float(t_max)
    if not t_max > 0:
        raise ValueError(f"t_max must be positive, got {t_max}")
    dt = t_max / (P - 1)
    t = np.arange(P, dtype=np.float64) * dt
    phi = np.exp(-0.5 * t * t)
    w = 2.0 * dt * phi
    w[0] = dt * phi[0]
    w[-1] = dt * phi[-1]
    return t, phi, w


def make_projection(D: int, num_slices: int, seed: int) -> np.ndarray:
    """Projection generated from a seed: raw g bit-exact, normalized in float64."""
    from .philox import projection_f64

    return projection_f64(seed, D, num_slices)


def _as_shards(x: ArrayOrShards, world_size: int):
    """Return (list of float64 [V, N, D] shards, had_view_dim, W, simulated)."""
    if isinstance(x, (list, tuple)):
        if len(x) == 0:
            raise ValueError("empty list of shards")
        shards = [np.asarray(s, dtype=np.float64) for s in x]
        if world_size not in (1, len(shards)):
            raise ValueError("world_size must equal the number of shards")
        W = len(shards)
        simulated = True
    else:
        shards = [np.asarray(x, dtype=np.float64)]
        W = int(world_size)
        if W < 1:
            raise ValueError("world_size must be >= 1")
        simulated = False
    ndim = shards[0].ndim
    if ndim not in (2, 3):
        raise ValueError(f"x must be [N, D] or [V, N, D], got shape {shards[0].shape}")
    for s in shards:
        if s.shape != shards[0].shape:
            raise ValueError("all shards must have the same shape")
    had_view = ndim == 3
    shards = [s if had_view else s[None] for s in shards]
    if shards[0].shape[1] < 1:
        raise ValueError("batch N must be >= 1")
    return shards, had_view, W, simulated


def _resolve_projection(D: int, A: Optional[np.ndarray], seed: Optional[int], num_slices: Optional[int]) -> np.ndarray:
    if A is not None:
        A = np.asarray(A, dtype=np.float64)
        if A.ndim != 2 or A.shape[0] != D:
            raise ValueError(f"A must be [D={D}, S], got {A.shape}")
        if num_slices is not None and A.shape[1] != num_slices:
            raise ValueError("num_slices disagrees with A")
        return A
    if seed is None or num_slices is None:
        raise ValueError("give either A or both seed and num_slices")
    return make_projection(D, int(num_slices), int(seed))


def _check_knobs(clip_mode: str, reduction: Optional[str] = None):
    if clip_mode not in CLIP_MODES:
        raise ValueError(f"clip_mode must be one of {CLIP_MODES}, got {clip_mode!r}")
    if reduction is not None and reduction not in REDUCTIONS:
        raise ValueError(f"reduction must be one of {REDUCTIONS}, got {reduction!r}")


def ecf(y: np.ndarray, t: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Batch-mean ECF of projected data y [V, N, S] at points t [P] -> two [V, S, P]."""
    V, N, S = y.shape
    P = t.shape[0]
    c = np.empty((V, S, P))
    s = np.empty((V, S, P))
    for p in range(P):
        arg = y * t[p]
        c[:, :, p] = np.cos(arg).mean(axis=1)
        s[:, :, p] = np.sin(arg).mean(axis=1)
    return c, s


def epps_pulley(c, s, phi, w, n_global, clip_mode="none", clip_value=0.0):
    """T[..., s] = N_global sum_p w_p ((c - phi)^2 + s^2), then clipping.

    Returns (T, gate) where gate is 1.0 where T was kept and 0.0 where the
    clipping replaced it.
    """
    _check_knobs(clip_mode)
    T = float(n_global) * np.einsum("...p,p->...", (c - phi) ** 2 + s ** 2, w)
    gate = np.ones_like(T)
    if clip_mode == "zero_below":
        low = T < clip_value
        T = np.where(low, 0.0, T)
        gate[low] = 0.0
    elif clip_mode == "clamp_min":
        low = T < clip_value
        T = np.where(low, float(clip_value), T)
        gate[low] = 0.0
    return T, gate


def _reduce(T: np.ndarray, reduction: str):
    if reduction == "mean":
        return float(T.mean())
    if reduction == "sum":
        return float(T.sum())
    return T


def _forward(x, A, seed, num_slices, num_points, t_max, clip_mode, clip_value, world_size):
    _check_knobs(clip_mode)
    shards, had_view, W, _ = _as_shards(x, world_size)
    V, N, D = shards[0].shape
    A = _resolve_projection(D, A, seed, num_slices)
    t, phi, w = integration_grid(num_points, t_max)
    ys = [sh @ A for sh in shards]  # [V, N, S] each
    cs = [ecf(y, t) for y in ys]
    c = sum(ci for ci, _ in cs) / len(cs)  # all-reduce mean over ranks
    s = sum(si for _, si in cs) / len(cs)
    T, gate = epps_pulley(c, s, phi, w, N * W, clip_mode, clip_value)
    return dict(shards=shards, had_view=had_view, W=W, A=A, t=t, phi=phi, w=w,
                ys=ys, c=c, s=s, T=T, gate=gate)


def statistics(
    x: ArrayOrShards,
    A: Optional[np.ndarray] = None,
    *,
    seed: Optional[int] = None,
    num_slices: Optional[int] = None,
    num_points: int = 17,
    t_max: float = 3.0,
    clip_mode: str = "none",
    clip_value: float = 0.0,
    world_size: int = 1,
) -> np.ndarray:
    """Per-slice Epps-Pulley statistic after clipping: [S] or [V, S] (float64)."""
    f = _forward(x, A, seed, num_slices, num_points, t_max, clip_mode, clip_value, world_size)
    return f["T"] if f["had_view"] else f["T"][0]


def statistics_from_projected(
    y: np.ndarray,
    *,
    num_points: int = 17,
    t_max: float = 3.0,
    clip_mode: str = "none",
    clip_value: float = 0.0,
    n_global: Optional[int] = None,
) -> np.ndarray:
    """Statistic from already projected data y [N, S] or [V, N, S] (no GEMM)."""
    y = np.asarray(y, dtype=np.float64)
    had_view = y.ndim == 3
    if not had_view:
        y = y[None]
    t, phi, w = integration_grid(num_points, t_max)
    c, s = ecf(y, t)
    T, _ = epps_pulley(c, s, phi, w, y.shape[1] if n_global is None else n_global, clip_mode, clip_value)
    return T if had_view else T[0]


def loss(
    x: ArrayOrShards,
    A: Optional[np.ndarray] = None,
    *,
    seed: Optional[int] = None,
    num_slices: Optional[int] = None,
    num_points: int = 17,
    t_max: float = 3.0,
    clip_mode: str = "none",
    clip_value: float = 0.0,
    reduction: str = "mean",
    world_size: int = 1,
):
    """SIGReg loss: a float for 'mean'/'sum'; T ([S] or [V, S]) for 'none'."""
    _check_knobs(clip_mode, reduction)
    T = statistics(x, A, seed=seed, num_slices=num_slices, num_points=num_points, t_max=t_max,
                   clip_mode=clip_mode, clip_value=clip_value, world_size=world_size)
    return _reduce(T, reduction)


def gradient(
    x: ArrayOrShards,
    A: Optional[np.ndarray] = None,
    *,
    seed: Optional[int] = None,
    num_slices: Optional[int] = None,
    num_points: int = 17,
    t_max: float = 3.0,
    clip_mode: str = "none",
    clip_value: float = 0.0,
    reduction: str = "mean",
    world_size: int = 1,
    convention: str = "global",
):
    """Analytic dL/dx (docs/CONTRACT.md section 2). A carries no gradient.

    Returns an array shaped like ``x``, or a list (one per shard) when ``x`` is
    a list of shards. ``reduction`` must be 'mean' or 'sum'. ``convention`` is
    'global' (derivative of the global loss) or 'autograd_all_reduce' (W times
    that: what per-rank autograd through an all-reduce gives; see module doc).
    """
    _check_knobs(clip_mode, reduction)
    if reduction == "none":
        raise ValueError("gradient needs a scalar loss: reduction 'mean' or 'sum'")
    if convention not in ("global", "autograd_all_reduce"):
        raise ValueError(f"unknown convention {convention!r}")
    f = _forward(x, A, seed, num_slices, num_points, t_max, clip_mode, clip_value, world_size)
    c, s, gate, t, phi, w, A = f["c"], f["s"], f["gate"], f["t"], f["phi"], f["w"], f["A"]
    V, S = gate.shape
    r = 1.0 / (V * S) if reduction == "mean" else 1.0
    scale = 2.0 * r * (f["W"] if convention == "autograd_all_reduce" else 1.0)
    coef_sin = -(c - phi) * (w * t)  # [V, S, P]
    coef_cos = s * (w * t)
    grads = []
    for y in f["ys"]:
        dy = np.zeros_like(y)  # [V, N, S]
        for p in range(t.shape[0]):
            arg = y * t[p]
            dy += np.sin(arg) * coef_sin[:, None, :, p] + np.cos(arg) * coef_cos[:, None, :, p]
        dy *= scale * gate[:, None, :]
        dx = dy @ A.T  # [V, N, D]
        grads.append(dx if f["had_view"] else dx[0])
    if isinstance(x, (list, tuple)):
        return grads
    return grads[0]
