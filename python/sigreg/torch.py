"""``sigreg.torch``: SIGReg as a drop-in PyTorch module (docs/TORCH.md).

:class:`SIGReg` is an ``nn.Module`` with LeJEPA's knobs and seeding; :func:`sigreg_loss` is the
functional form. The computation is split at the distributed boundary of docs/CONTRACT.md
section 1.5, like the compiler's ``sigreg.all_reduce_mean``:

1. ``torch.ops.sigreg.ecf(x, A, t_max, num_points) -> (cos, sin)``: the projection GEMM and the
   local ECF means ``[V, S, P]``, a ``torch.library`` custom op with a fake (meta) implementation
   (``torch.compile`` traces through it) and its own backward, ``torch.ops.sigreg.ecf_backward``
   (docs/CONTRACT.md section 2: ``dL/dy`` from the ECF cotangents, then ``dL/dy A^T``). Nothing
   of size ``N * S * P`` outlives a chunk of rows.
2. Under ``torch.distributed``, the ``[V, S, P]`` means are averaged over the ranks (one
   all-reduce each); the backward passes the cotangent through unchanged, which is what autograd
   gives through ``torch.distributed.nn.functional.all_reduce`` (docs/CONTRACT.md section 3: each
   rank receives ``W`` times the formula of section 2 for its own samples).
3. The statistic, the clip and the reduction: a few torch ops on ``[V, S, P]``.

That ECF op is torch code (float32, or float64 for float64 inputs), on every device. On an
sm_90 GPU with bf16/f16 embeddings and a seeded projection, ``backend="auto"`` (the default)
replaces it with ``torch.ops.sigreg.ecf_compiled``: this repository's compiled entry points of the
split, compiled on demand (``sigreg.compile``) and launched through the C ABI (``sigreg.capi``);
see docs/TORCH.md, "The compiled backend".
"""

from __future__ import annotations

import math
import warnings
from typing import Optional, Tuple

import torch
import torch.distributed as dist
from torch import nn

from . import philox
from .capi import _current_stream, _seed_fits

__all__ = ["SIGReg", "sigreg_loss", "projection", "precompile", "CompiledBackendUnavailable"]

CLIP_MODES = ("zero_below", "clamp_min")
REDUCTIONS = ("mean", "sum", "none")
BACKENDS = ("auto", "torch", "compiled")
# Rows of x per chunk of the ECF: bounds the [chunk, S, P] temporaries to
# about 2^24 elements.
_CHUNK_ELEMENTS = 1 << 24


def _compute_dtype(dtype: torch.dtype) -> torch.dtype:
    return torch.float64 if dtype == torch.float64 else torch.float32


_GRIDS: dict = {}


def _grid(num_points: int, t_max: float, device, dtype):
    """(t, phi, w) of docs/CONTRACT.md section 1.3, computed in float64 with torch ops (the
    operations of sigreg.reference.integration_grid, so traceable), then cast. Eager calls
    reuse the tensors of an earlier call (a dozen small launches fewer per call)."""
    if torch.compiler.is_compiling():
        return _make_grid(num_points, t_max, device, dtype)
    key = (int(num_points), float(t_max), str(device), dtype)
    if key not in _GRIDS:
        _GRIDS[key] = _make_grid(num_points, t_max, device, dtype)
    return _GRIDS[key]


def _make_grid(num_points: int, t_max: float, device, dtype):
    P = int(num_points)
    dt = float(t_max) / (P - 1)
    t = torch.arange(P, dtype=torch.float64, device=device) * dt
    phi = torch.exp(-0.5 * t * t)
    ends = torch.zeros(P, dtype=torch.bool, device=device)
    ends[0] = True
    ends[-1] = True
    w = torch.where(ends, dt * phi, 2.0 * dt * phi)
    return t.to(dtype), phi.to(dtype), w.to(dtype)


def _chunk_rows(n: int, s: int, p: int) -> int:
    return max(1, min(n, _CHUNK_ELEMENTS // max(1, s * p)))


# ---------------------------------------------------------------------------
# 1. The ECF custom op and its backward
# ---------------------------------------------------------------------------

@torch.library.custom_op("sigreg::ecf", mutates_args=())
def _ecf(x: torch.Tensor, A: torch.Tensor, t_max: float, num_points: int) -> Tuple[torch.Tensor, torch.Tensor]:
    """x [V, N, D], A [D, S] -> the local means cos, sin [V, S, P] (f32; f64 for f64 x)."""
    ct = _compute_dtype(x.dtype)
    t, _, _ = _grid(num_points, t_max, x.device, ct)
    V, N, _ = x.shape
    S = A.shape[1]
    Ac = A.to(ct)
    cos = torch.zeros((V, S, num_points), dtype=ct, device=x.device)
    sin = torch.zeros_like(cos)
    step = _chunk_rows(N, S, num_points)
    for n0 in range(0, N, step):
        y = x[:, n0:n0 + step].to(ct) @ Ac  # [V, n, S]
        args = y.unsqueeze(-1) * t  # [V, n, S, P]
        cos += torch.cos(args).sum(dim=1)
        sin += torch.sin(args).sum(dim=1)
    return cos / N, sin / N


@_ecf.register_fake
def _(x, A, t_max, num_points):
    V = x.shape[0]
    S = A.shape[1]
    out = x.new_empty((V, S, num_points), dtype=_compute_dtype(x.dtype))
    return out, torch.empty_like(out)


@torch.library.custom_op("sigreg::ecf_backward", mutates_args=())
def _ecf_backward(x: torch.Tensor, A: torch.Tensor, dcos: torch.Tensor, dsin: torch.Tensor,
                  t_max: float) -> torch.Tensor:
    """dL/dx [V, N, D] (f32, or f64 for f64 x) from the cotangents of the local ECF means:
    dL/dy[v,n,s] = (1/N) sum_p t_p (dsin cos(t_p y) - dcos sin(t_p y)), dL/dx = dL/dy A^T."""
    ct = _compute_dtype(x.dtype)
    P = dcos.shape[-1]
    t, _, _ = _grid(P, t_max, x.device, ct)
    V, N, D = x.shape
    S = A.shape[1]
    Ac = A.to(ct)
    dc = (dcos.to(ct) * t).unsqueeze(1)  # [V, 1, S, P]
    ds = (dsin.to(ct) * t).unsqueeze(1)
    dx = torch.empty((V, N, D), dtype=ct, device=x.device)
    step = _chunk_rows(N, S, P)
    for n0 in range(0, N, step):
        y = x[:, n0:n0 + step].to(ct) @ Ac
        args = y.unsqueeze(-1) * t
        dy = (ds * torch.cos(args) - dc * torch.sin(args)).sum(dim=-1) / N  # [V, n, S]
        dx[:, n0:n0 + step] = dy @ Ac.T
    return dx


@_ecf_backward.register_fake
def _(x, A, dcos, dsin, t_max):
    return x.new_empty(x.shape, dtype=_compute_dtype(x.dtype))


def _ecf_setup_context(ctx, inputs, output):
    x, A, t_max, _ = inputs
    ctx.save_for_backward(x, A)
    ctx.t_max = t_max


def _ecf_autograd_backward(ctx, dcos, dsin):
    x, A = ctx.saved_tensors
    dx = None
    if ctx.needs_input_grad[0]:
        dx = torch.ops.sigreg.ecf_backward(x, A, dcos, dsin, ctx.t_max).to(x.dtype)
    return dx, None, None, None


torch.library.register_autograd("sigreg::ecf", _ecf_autograd_backward, setup_context=_ecf_setup_context)


# ---------------------------------------------------------------------------
# 1b. The compiled entry points (docs/TORCH.md, "The compiled backend")
# ---------------------------------------------------------------------------

_TORCH_DTYPES = {torch.bfloat16: "bf16", torch.float16: "f16"}
# (V, N, D, S, P, t_max, dtype) -> (ecf, ecf_backward) CapiFunctions, or the reason there are
# none (so that a problem the compiler rejects is not compiled again every call).
_COMPILED: dict = {}


class CompiledBackendUnavailable(RuntimeError):
    """backend='compiled' was asked for, and the compiled entry points cannot run this call."""


_CAPABILITY: dict = {}


def _compiled_obstacle(x: torch.Tensor) -> Optional[str]:
    """Why the compiled entry points cannot take ``x`` [V, N, D] (None: they may)."""
    if x.device.type != "cuda":
        return f"x is on {x.device}, the compiled kernels run on CUDA devices"
    if x.dtype not in _TORCH_DTYPES:
        return f"x is {x.dtype}; the compiled forward and backward take bf16 or f16"
    index = x.device.index if x.device.index is not None else torch.cuda.current_device()
    if index not in _CAPABILITY:
        _CAPABILITY[index] = torch.cuda.get_device_capability(index)
    if _CAPABILITY[index] != (9, 0):
        return "the compiled kernels are built for sm_90a (H100/H200)"
    return None


def split_problems(V: int, N: int, D: int, S: int, P: int, t_max: float, dtype: str,
                   reduced: bool = True):
    """The ``sigreg.compile.Problem`` of the split's two entry points (``ecf``,
    ``ecf_backward``) for x [V, N, D] in ``dtype`` ('bf16' or 'f16')."""
    from .compile import Problem  # noqa: PLC0415

    return [Problem(N=N, D=D, S=S, V=V, P=P, t_max=float(t_max), dtype=dtype,
                    reduction="none" if ep == "ecf" and not reduced else "mean",
                    projection="seed", entry_point=ep)
            for ep in ("ecf", "ecf_backward")]


def call_problems(shape, dtype: torch.dtype, num_slices: int, num_points: int = 17,
                  t_max: float = 3.0, clip_value=None, clip_mode: str = "zero_below",
                  reduction: str = "mean"):
    """Every compiled artifact (``sigreg.compile.Problem``) that the compiled backend may run
    for x of ``shape`` ([N, D] or [V, N, D]) and ``dtype`` (bf16/f16) with these knobs: the
    whole loss, its gradient and, for a scalar loss, the step, phased and whole (a single
    process, no clip), and the split's entry points (traced code, torch.distributed, clipped
    losses)."""
    if dtype not in _TORCH_DTYPES:
        raise ValueError(f"the compiled backend takes bf16 or f16 embeddings, got {dtype}")
    shape = tuple(int(d) for d in shape)
    if len(shape) not in (2, 3):
        raise ValueError(f"x must be [N, D] or [V, N, D], got shape {shape}")
    V = shape[0] if len(shape) == 3 else 1
    problems = []
    if clip_value is None:
        problems += [whole_problem(shape, dtype, num_slices, num_points, t_max, None, clip_mode,
                                   reduction, gradient) for gradient in (False, True)]
        # The module's own global_step: the loss seeded from the counter on the GPU.
        problems.append(whole_problem(shape, dtype, num_slices, num_points, t_max, None,
                                      clip_mode, reduction, False, device_step=True))
        if reduction != "none":
            problems += [whole_problem(shape, dtype, num_slices, num_points, t_max, None,
                                       clip_mode, reduction, False, step=True, phased=phased,
                                       device_step=device_step)
                         for phased in (True, False) for device_step in (False, True)]
    problems += split_problems(V, shape[-2], shape[-1], int(num_slices), int(num_points),
                               t_max, _TORCH_DTYPES[dtype], reduction != "none")
    return problems


def precompile(shape, dtype: torch.dtype, num_slices: int, **knobs):
    """Compiles into the cache (``sigreg.compile``: ``$SIGREG_CACHE_DIR``, else
    ``~/.cache/sigreg``) every artifact of :func:`call_problems`, on a machine with the
    compiler and no GPU needed, so that a GPU machine without the compiler finds them (point
    its ``SIGREG_CACHE_DIR`` at the same cache). Returns their directories. An artifact the
    compiler rejects is skipped with a ``RuntimeWarning`` giving its diagnostic, as the module
    then runs another path (the whole-loss ones fall back to the split); the split's entry
    points are the last path, so their rejection raises ``sigreg.compile.CompileError``."""
    from .compile import CompileError, compile_artifact  # noqa: PLC0415

    dirs = []
    for p in call_problems(shape, dtype, num_slices, **knobs):
        try:
            dirs.append(compile_artifact(p))
        except CompileError as e:
            if p.entry_point:
                raise
            lines = [line for line in str(e).splitlines() if "error:" in line] or [str(e)]
            warnings.warn(f"sigreg.torch.precompile: skipped {p} (the module runs another path "
                          f"for it): {lines[0]}", RuntimeWarning, stacklevel=2)
    return dirs


def _compiled_entries(V: int, N: int, D: int, S: int, P: int, t_max: float, dtype: str,
                      reduced: bool = True, device: int = 0):
    """The two compiled entry points of this problem, compiled on demand (sigreg.compile: the
    on-disk cache, else the compiler), loaded through the C ABI (sigreg.capi) on cuda:``device``
    (each device of a process has its own). ``reduced``: the loss is reduced over the slices
    (mean, sum), which lets the forward round g to 16 bits where the error budget allows.
    Raises CompiledBackendUnavailable with the reason when they cannot be had."""
    key = (V, N, D, S, P, float(t_max), dtype, bool(reduced), int(device))
    got = _COMPILED.get(key)
    if got is None:
        from .capi import CapiError, CapiFunction  # noqa: PLC0415 (lazy: needs the runtime)
        from .compile import CompileError, CompilerNotFound, compile_artifact  # noqa: PLC0415
        try:
            got = tuple(CapiFunction(str(compile_artifact(p)), device)
                        for p in split_problems(V, N, D, S, P, t_max, dtype, reduced))
        except (CompileError, CompilerNotFound, CapiError, OSError) as e:
            got = str(e)
        _COMPILED[key] = got
    if isinstance(got, str):
        raise CompiledBackendUnavailable(got)
    return got


@torch.library.custom_op("sigreg::ecf_compiled", mutates_args=())
def _ecf_compiled(x: torch.Tensor, seed: torch.Tensor, num_slices: int, t_max: float,
                  num_points: int, reduced: bool) -> Tuple[torch.Tensor, torch.Tensor]:
    """sigreg::ecf of the seed's projection on the compiled ``ecf`` entry point: x [V, N, D]
    (bf16/f16, CUDA) -> cos, sin [V, S, P] f32, the projection generated in the kernels."""
    return _run_ecf_compiled(x, int(seed.item()), num_slices, t_max, num_points, reduced)


def _run_ecf_compiled(x, seed: int, num_slices, t_max, num_points, reduced):
    V, N, D = x.shape
    fwd, _ = _compiled_entries(V, N, D, num_slices, num_points, t_max, _TORCH_DTYPES[x.dtype],
                               reduced, x.get_device())
    cos = torch.empty((V, num_slices, num_points), dtype=torch.float32, device=x.device)
    sin = torch.empty_like(cos)
    fwd.run({"x": x.contiguous(), "cos": cos, "sin": sin}, seed=seed)
    return cos, sin


@_ecf_compiled.register_fake
def _(x, seed, num_slices, t_max, num_points, reduced):
    out = x.new_empty((x.shape[0], num_slices, num_points), dtype=torch.float32)
    return out, torch.empty_like(out)


@torch.library.custom_op("sigreg::ecf_compiled_backward", mutates_args=())
def _ecf_compiled_backward(x: torch.Tensor, seed: torch.Tensor, dcos: torch.Tensor,
                           dsin: torch.Tensor, t_max: float, reduced: bool) -> torch.Tensor:
    """dL/dx [V, N, D] f32 on the compiled ``ecf_backward`` entry point (y recomputed, dL/dy
    formed in registers, dL/dy A^T on tensor cores)."""
    return _run_ecf_compiled_backward(x, int(seed.item()), dcos, dsin, t_max, reduced)


def _run_ecf_compiled_backward(x, seed: int, dcos, dsin, t_max, reduced):
    V, N, D = x.shape
    S, P = dcos.shape[1], dcos.shape[2]
    _, bwd = _compiled_entries(V, N, D, S, P, t_max, _TORCH_DTYPES[x.dtype], reduced,
                               x.get_device())
    dx = torch.empty((V, N, D), dtype=torch.float32, device=x.device)
    bwd.run({"x": x.contiguous(), "dcos": dcos.float().contiguous(),
             "dsin": dsin.float().contiguous(), "out": dx}, seed=seed)
    return dx


@_ecf_compiled_backward.register_fake
def _(x, seed, dcos, dsin, t_max, reduced):
    return x.new_empty(x.shape, dtype=torch.float32)


def _ecf_compiled_setup_context(ctx, inputs, output):
    x, seed, _, t_max, _, reduced = inputs
    ctx.save_for_backward(x, seed)
    ctx.t_max = t_max
    ctx.reduced = reduced


def _ecf_compiled_autograd_backward(ctx, dcos, dsin):
    x, seed = ctx.saved_tensors
    dx = None
    if ctx.needs_input_grad[0]:
        dx = torch.ops.sigreg.ecf_compiled_backward(x, seed, dcos, dsin, ctx.t_max,
                                                    ctx.reduced).to(x.dtype)
    return dx, None, None, None, None, None


torch.library.register_autograd("sigreg::ecf_compiled", _ecf_compiled_autograd_backward,
                                setup_context=_ecf_compiled_setup_context)


class _EcfCompiled(torch.autograd.Function):
    """The same two entry points as sigreg::ecf_compiled for eager calls: an autograd.Function
    skips the custom op's dispatch, about half of the host time of a step (measured with the
    launches stubbed out, on the 2-core CPU machine: about 440 us per forward + backward through
    the custom ops, 210-270 us through this class). Traced code (torch.compile) uses the custom
    ops."""

    @staticmethod
    def forward(ctx, x, seed, num_slices, t_max, num_points, reduced):
        # The seed is read once (a synchronization when it lives on the GPU) and kept for the
        # backward.
        ctx.seed = int(seed.item())
        ctx.save_for_backward(x)
        ctx.t_max, ctx.reduced = t_max, reduced
        return _run_ecf_compiled(x, ctx.seed, num_slices, t_max, num_points, reduced)

    @staticmethod
    def backward(ctx, dcos, dsin):
        (x,) = ctx.saved_tensors
        dx = None
        if ctx.needs_input_grad[0]:
            dx = _run_ecf_compiled_backward(x, ctx.seed, dcos, dsin, ctx.t_max,
                                            ctx.reduced).to(x.dtype)
        return dx, None, None, None, None, None


def _use_compiled(backend: str, x3: torch.Tensor, S: int, P: int, t_max: float,
                  reduced: bool) -> bool:
    """Whether this call runs on the compiled entry points: backend 'torch' never; 'compiled'
    always (or CompiledBackendUnavailable with the reason); 'auto' when they can."""
    if backend == "torch":
        return False
    why = _compiled_obstacle(x3)
    if why is None:
        V, N, D = x3.shape
        try:
            _compiled_entries(int(V), int(N), int(D), S, P, t_max, _TORCH_DTYPES[x3.dtype],
                              reduced, x3.get_device())
        except CompiledBackendUnavailable as e:
            why = str(e)
            # The GPU could run the compiled kernels but they could not be had (no compiler
            # and no cached artifact, or the compiler's diagnostic): say so once per problem.
            if backend == "auto" and not torch.compiler.is_compiling():
                warnings.warn(f"sigreg.torch: the compiled backend is unavailable for x "
                              f"{tuple(x3.shape)}, running torch ops instead: {why}",
                              RuntimeWarning, stacklevel=3)
    if why is not None and backend == "compiled":
        raise CompiledBackendUnavailable(f"the compiled backend cannot run this call: {why}")
    return why is None


# 1c. The whole loss in one compiled call (a single process)
# ---------------------------------------------------------------------------

# (x shape, dtype, S, P, t_max, clip_value, clip_mode, reduction, gradient, step, phased) ->
# CapiFunction, or the reason there is none.
_WHOLE: dict = {}


def whole_problem(shape, dtype: torch.dtype, S: int, P: int, t_max: float, clip_value,
                  clip_mode: str, reduction: str, gradient: bool, step: bool = False,
                  phased: bool = False, device_step: bool = False):
    """The ``sigreg.compile.Problem`` of the whole-loss artifact (``gradient``: its
    ``sigreg.loss_grad``; ``step``: the loss and its gradient in one artifact, ``phased``: run
    in two phases, dL/dx in x's dtype; ``device_step``: seeded from a step counter on the GPU,
    which the forward advances) that a single-process call on x of ``shape`` and ``dtype``
    runs (compile it ahead into a cache for a machine without the compiler)."""
    from .compile import Problem  # noqa: PLC0415

    return Problem(N=int(shape[-2]), D=int(shape[-1]), S=int(S),
                   V=int(shape[0]) if len(shape) == 3 else 0, P=int(P), t_max=float(t_max),
                   clip="none" if clip_value is None else clip_mode,
                   clip_value=0.0 if clip_value is None else float(clip_value),
                   reduction=reduction, dtype=_TORCH_DTYPES[dtype],
                   projection="step" if device_step else "seed",
                   gradient=gradient, step=step, phased=phased)


def _whole_function(x: torch.Tensor, S: int, P: int, t_max: float, clip_value, clip_mode: str,
                    reduction: str, gradient: bool, step: bool = False, phased: bool = False,
                    device_step: bool = False):
    """The compiled ``sigreg.loss`` (``gradient`` False), ``sigreg.loss_grad`` (True) or step
    (``step``: both in one artifact) of the whole problem of ``x`` ([N, D] or [V, N, D],
    bf16/f16, CUDA) with its knobs, compiled on demand; None when it cannot be had (the reason
    is kept, so that a problem the compiler rejects is not compiled again every call)."""
    key = (tuple(x.shape), x.dtype, S, P, t_max, clip_value, clip_mode, reduction, gradient,
           step, phased, device_step, x.get_device())
    got = _WHOLE.get(key)
    if got is None:
        from .capi import CapiError, CapiFunction  # noqa: PLC0415 (lazy: needs the runtime)
        from .compile import CompileError, CompilerNotFound, compile_artifact  # noqa: PLC0415
        problem = whole_problem(tuple(x.shape), x.dtype, S, P, t_max, clip_value, clip_mode,
                                reduction, gradient, step, phased, device_step)
        try:
            got = CapiFunction(str(compile_artifact(problem)), x.get_device())
        except (CompileError, CompilerNotFound, CapiError, OSError) as e:
            got = str(e)
        _WHOLE[key] = got
    return None if isinstance(got, str) else got


class _LossCompiled(torch.autograd.Function):
    """The loss of a single process in one compiled call, and dL/dx in one more: the
    artifacts of ``sigreg.loss`` and ``sigreg.loss_grad`` (the cotangent ``g`` of the loss is
    the gradient artifact's input). No torch op runs between them, so a training step costs
    two C ABI calls of host time instead of the split's two entry points and the statistic's
    autograd node (docs/TORCH.md, "The compiled backend")."""

    @staticmethod
    def forward(ctx, x, seed, loss_fn, grad_fn):
        ctx.save_for_backward(x)
        ctx.seed, ctx.grad_fn = seed, grad_fn
        return loss_fn(x.contiguous(), seed=seed)

    @staticmethod
    @torch.autograd.function.once_differentiable  # dL/dx comes from a kernel: no second order
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        dx = None
        if ctx.needs_input_grad[0]:
            dx = ctx.grad_fn(x.contiguous(), seed=ctx.seed,
                             grad=g.float().contiguous()).to(x.dtype)
        return dx, None, None, None


# device -> the f32 1.0 a step artifact takes as its cotangent.
_UNIT_COTANGENT: dict = {}


def _unit_cotangent(device) -> torch.Tensor:
    unit = _UNIT_COTANGENT.get(device)
    if unit is None:
        unit = _UNIT_COTANGENT[device] = torch.ones((), dtype=torch.float32, device=device)
    return unit


class _StepCompiled(torch.autograd.Function):
    """A training step in one compiled call: the step artifact (``sigreg.loss`` and
    ``sigreg.loss_grad`` in one function, sharing one forward: its means feed both, its slices
    the backward) runs at forward time with a unit cotangent and returns the loss and dL/dx.
    The loss is a scalar (mean or sum), so dL/dx for the cotangent ``g`` is ``g`` times that;
    the backward is one multiply, written in x's dtype."""

    @staticmethod
    def forward(ctx, x, seed, step_fn, counter=None):
        unit = _unit_cotangent(x.device)
        # new_empty: x's device without parsing a device argument (cheaper than torch.empty).
        loss = x.new_empty((), dtype=torch.float32)
        dx = x.new_empty(x.shape, dtype=torch.float32)
        binds = {"x": x, "grad": unit, "out": loss, "dx": dx}
        if counter is not None:
            binds["step"] = counter
        step_fn.run(binds, seed=seed)
        ctx.save_for_backward(dx)
        ctx.dtype = x.dtype
        return loss

    @staticmethod
    def backward(ctx, g):
        # dL/dx comes from a kernel: no second order (once_differentiable). Its wrapper only
        # acts when the backward records a graph (create_graph=True); a plain backward skips
        # it (a no_grad block, 1-4 us).
        return (_step_backward_once if torch.is_grad_enabled() else _step_backward)(ctx, g)


def _step_backward(ctx, g):
    """_StepCompiled's backward: g times the step's dL/dx, in x's dtype."""
    (dx,) = ctx.saved_tensors
    if not ctx.needs_input_grad[0]:
        return None, None, None, None
    return torch.mul(dx, g, out=dx.new_empty(dx.shape, dtype=ctx.dtype)), None, None, None


_step_backward_once = torch.autograd.function.once_differentiable(_step_backward)


class _StepPhased(torch.autograd.Function):
    """A training step on a phased step artifact (docs/AOT.md): its forward phase (one launch
    at the small shapes: the loss, and G and g for the backward GEMM) at forward time, its
    backward phase (the GEMM, scaled by the cotangent ``g``, dL/dx stored in x's dtype) at
    backward time; nothing else runs. What the backward phase reads lives in tensors of this
    call (bound to the artifact's workspaces), so that several forwards may run before their
    backwards. A backward hands its buffers to the next forward on the same stream (outside
    CUDA-graph capture): unchanged addresses, so the runtime re-encodes no tensor map."""

    @staticmethod
    def forward(ctx, x, seed, step_fn, counter=None):
        loss = x.new_empty((), dtype=torch.float32)
        spare = step_fn.__dict__.pop("_spare_workspaces", None)
        if spare is not None and (_capturing(x) or spare[0] != _stream_of(x)):
            spare = None
        saved = dict(spare[1]) if spare is not None else {}
        # A workspace that may share dL/dx's allocation (docs/AOT.md, "shares") lives in
        # one buffer with it: the backward phase writes dL/dx over what it has read.
        ctx.dx_buffer = ctx.dx_shares = None
        for b in step_fn.backward_workspaces:
            if b.shares is not None and b.shares[0] == "dx":
                offset, dx_bytes = b.shares[1], x.numel() * x.element_size()
                ctx.dx_buffer = x.new_empty((max(dx_bytes, offset + b.bytes),), dtype=torch.uint8)
                ctx.dx_shares = b.name
                saved[b.name] = ctx.dx_buffer[offset:offset + b.bytes]
            elif b.name not in saved:
                saved[b.name] = x.new_empty((b.bytes,), dtype=torch.uint8)
        binds = {"x": x, "out": loss, **saved}
        if counter is not None:
            binds["step"] = counter
        step_fn.run_phase("forward", binds, seed=seed)
        ctx.step_fn, ctx.saved_workspaces = step_fn, saved
        ctx.x_shape, ctx.dtype = x.shape, x.dtype
        return loss

    @staticmethod
    def backward(ctx, g):
        return (_phased_backward_once if torch.is_grad_enabled() else _phased_backward)(ctx, g)


def _phased_backward(ctx, g):
    """_StepPhased's backward: the artifact's backward phase with the cotangent ``g``."""
    saved, ctx.saved_workspaces = ctx.saved_workspaces, None
    if not ctx.needs_input_grad[0]:
        return None, None, None, None
    if saved is None:
        raise RuntimeError("sigreg: the compiled step's backward ran twice (retain_graph); "
                           "its saved buffers are gone")
    shared, ctx.dx_buffer = ctx.dx_buffer, None
    if shared is None:
        dx = g.new_empty(ctx.x_shape, dtype=ctx.dtype)
    else:
        dx = shared[:math.prod(ctx.x_shape) * ctx.dtype.itemsize].view(ctx.dtype).view(ctx.x_shape)
    ctx.step_fn.run_phase("backward", {"grad": g.float().contiguous(), "dx": dx, **saved})
    if not _capturing(dx):
        # dL/dx's own buffer goes to the caller, not to the next forward.
        ctx.step_fn._spare_workspaces = (
            _stream_of(dx), {k: v for k, v in saved.items() if k != ctx.dx_shares})
    return dx, None, None, None


def _stream_of(t):
    """torch's current stream on ``t``'s device, as a (device, raw handle) pair that compares
    equal for the same stream (None on the CPU); the raw handle, not a torch.cuda.Stream
    object, which costs microseconds per call."""
    if not t.is_cuda:
        return None
    index = t.get_device()
    return index, _current_stream(torch, index)


def _capturing(t) -> bool:
    """Whether a CUDA graph is being captured on ``t``'s device's current stream."""
    return t.is_cuda and torch.cuda.is_current_stream_capturing()


_phased_backward_once = torch.autograd.function.once_differentiable(_phased_backward)




def _seed_value(seed) -> int:
    """A seed (an int or a 0-d integer tensor, read back once) as the int the artifacts take."""
    return int(seed.item()) if isinstance(seed, torch.Tensor) else int(seed)


def _whole_route(x, S: int, P: int, t_max: float, clip_value, clip_mode: str, reduction: str,
                 device_step: bool = False):
    """Which whole-problem artifacts a call on ``x`` runs: ``(step_fn, None, None,
    device_step)`` for a scalar loss whose gradient autograd will need (the step artifact: one
    call for both), else ``(None, loss_fn, grad_fn, device_step)`` (``grad_fn`` None when
    autograd needs no dL/dx); None when they cannot be had (the caller then takes the split).
    It depends on the knobs, x's shape, dtype and device, and whether autograd needs dL/dx
    (the module's cache key). ``device_step``: artifacts seeded from a step counter on the
    GPU (sigreg.advance_step), which read and advance it once per forward; there are none for
    a loss whose dL/dx comes from a second artifact (reduction none with autograd), which
    would read the counter again."""
    needs_grad = torch.is_grad_enabled() and x.requires_grad
    if reduction != "none" and needs_grad:
        # Phased (dL/dx in x's dtype, the cotangent applied by the backward GEMM) where the
        # compiler makes it, else the step run whole at forward time.
        step_fn = None
        if x.dtype in (torch.bfloat16, torch.float16):
            step_fn = _whole_function(x, S, P, t_max, clip_value, clip_mode, reduction, False,
                                      step=True, phased=True, device_step=device_step)
        if step_fn is None:
            step_fn = _whole_function(x, S, P, t_max, clip_value, clip_mode, reduction, False,
                                      step=True, device_step=device_step)
        if step_fn is not None:
            return step_fn, None, None, device_step
    if device_step and needs_grad:
        return None
    loss_fn = _whole_function(x, S, P, t_max, clip_value, clip_mode, reduction, False,
                              device_step=device_step)
    if loss_fn is None:
        return None
    grad_fn = None
    if needs_grad:
        grad_fn = _whole_function(x, S, P, t_max, clip_value, clip_mode, reduction, True)
        if grad_fn is None:
            return None
    return None, loss_fn, grad_fn, device_step


def _direct_call(route, x):
    """What :func:`_run_whole` calls for a device-step ``route`` on ``x`` where an op runs its
    artifact and the host has nothing to check (the seed is the step counter): ``(op, handle,
    the unit cotangent or None)``, the op called as ``op(x, handle, 0, counter[, unit])``;
    None for any other route (SIGReg.forward then takes _run_route)."""
    step_fn, loss_fn, grad_fn, device_step = route
    if not device_step:
        return None
    if step_fn is not None:
        ops = getattr(step_fn, "_step_ops", None)
        if ops is None or ops[2]:
            return None
        return ops[0], ops[1], None if step_fn.phased else _unit_cotangent(x.device)
    if grad_fn is not None:
        return None
    fast = getattr(loss_fn, "_fast", None)
    if fast is None or fast.op is None or fast.seeded:
        return None
    return fast.op, fast.handle, None


def _route_artifact(route):
    """The artifact a route's op runs: its step, else its loss."""
    return route[0] if route[0] is not None else route[1]


def _run_whole(route, x, value):
    """The loss of ``x`` on the artifacts of a :func:`_whole_route`: with the int seed
    ``value``, or for a device-step route the step counter ``value`` (a 0-d int64 tensor on
    x's device, read and advanced by the forward's kernels)."""
    step_fn, loss_fn, grad_fn, device_step = route
    seed, counter = (None, value) if device_step else (value, None)
    if step_fn is not None:
        x = x.contiguous()
        # The ops (sigreg._ops, docs/TORCH.md "The ops path"): the step with its autograd node
        # in C++. They check the tensors; the seed is checked here. A refusal takes the
        # autograd.Function below, whose checks say what is wrong.
        ops = getattr(step_fn, "_step_ops", None)
        if ops is not None and (_seed_fits(seed) if ops[2] else seed is None):
            try:
                if step_fn.phased:
                    return ops[0](x, ops[1], seed or 0, counter)
                return ops[0](x, ops[1], seed or 0, counter, _unit_cotangent(x.device))
            except Exception as e:  # noqa: BLE001 (re-raised, or checked below)
                step_fn._op_failed(e)
        if step_fn.phased:
            return _StepPhased.apply(x, seed, step_fn, counter)
        return _StepCompiled.apply(x, seed, step_fn, counter)
    if grad_fn is None:  # no autograd node to record: the loss artifact alone
        x = x.contiguous()
        fast = getattr(loss_fn, "_fast", None)
        if (fast is not None and fast.op is not None
                and (_seed_fits(seed) if fast.seeded else seed is None)):
            try:  # torch.ops.sigreg.call, as CapiFunction.__call__ runs it
                return fast.op(x, fast.handle, seed or 0, counter)
            except Exception as e:  # noqa: BLE001 (re-raised, or checked below)
                loss_fn._op_failed(e)
        return loss_fn(x, seed=seed, step=counter)
    return _LossCompiled.apply(x, value, loss_fn, grad_fn)


def _whole_loss(x, seed, S: int, P: int, t_max: float, clip_value, clip_mode: str,
                reduction: str, record: Optional[list] = None):
    """The loss on the whole-problem artifacts (with the gradient's when autograd will need
    it), or None when they cannot be had (the caller then takes the split). ``record``
    receives the route taken (SIGReg keeps it for the next calls on the same x)."""
    value = _seed_value(seed)
    route = _whole_route(x, S, P, t_max, clip_value, clip_mode, reduction)
    if route is None:
        return None
    if record is not None:
        record.append(route)
    return _run_whole(route, x, value)


# torch.distributed is built in (fixed for the process; asked once, not per call).
_DIST_AVAILABLE = dist.is_available()


def _is_distributed(distributed: Optional[bool] = None) -> bool:
    """A call's ``distributed`` knob: as given, by default whether torch.distributed is
    initialized."""
    if distributed is None:
        return _DIST_AVAILABLE and dist.is_initialized()
    return distributed


def _single_process(distributed: Optional[bool], group) -> bool:
    """The call averages nothing over ranks: not distributed, or a group of one rank."""
    return not _is_distributed(distributed) or dist.get_world_size(group) == 1


# ---------------------------------------------------------------------------
# 2. The distributed boundary
# ---------------------------------------------------------------------------

class _AllReduceMean(torch.autograd.Function):
    """Mean over the ranks of ``group``; the backward passes the cotangent through: every rank
    computes the same loss from the same means, so this equals autograd through
    ``torch.distributed.nn.functional.all_reduce`` (sum of W identical cotangents divided by W)
    without a second collective."""

    @staticmethod
    def forward(ctx, cos, sin, group):
        world = dist.get_world_size(group)
        out = torch.stack([cos, sin]).contiguous()
        dist.all_reduce(out, op=dist.ReduceOp.SUM, group=group)
        out = out / world
        return out[0], out[1]

    @staticmethod
    def backward(ctx, dcos, dsin):
        return dcos, dsin, None


# ---------------------------------------------------------------------------
# 3. The statistic and the functional form
# ---------------------------------------------------------------------------

@torch.library.custom_op("sigreg::projection", mutates_args=())
def _projection(seed: torch.Tensor, D: int, num_slices: int, dtype: torch.dtype) -> torch.Tensor:
    """A [D, S] of the 0-d int64 ``seed`` tensor, on its device (an op, so that a seed held in a
    buffer traces under torch.compile)."""
    A = philox.projection_f64(int(seed.item()), int(D), int(num_slices))
    return torch.as_tensor(A, device=seed.device).to(dtype)


@_projection.register_fake
def _(seed, D, num_slices, dtype):
    return seed.new_empty((D, num_slices), dtype=dtype)


def projection(seed, D: int, num_slices: int, device=None, dtype=torch.float32) -> torch.Tensor:
    """The projection A [D, S] of ``seed`` (docs/PROJECTION.md): the bit-exact raw Gaussian of
    the compiler's generator, columns normalized in float64, then cast to ``dtype``. ``seed``:
    an int or a 0-d integer tensor."""
    if not isinstance(seed, torch.Tensor):
        seed = torch.tensor(int(seed), dtype=torch.long, device=device)
    elif device is not None:
        seed = seed.to(device)
    return torch.ops.sigreg.projection(seed.to(torch.long), int(D), int(num_slices), dtype)


def _check_knobs(num_slices, num_points, t_max, clip_mode, reduction):
    if num_slices is not None and int(num_slices) < 1:
        raise ValueError(f"num_slices must be positive, got {num_slices}")
    if int(num_points) < 3 or int(num_points) % 2 == 0:
        raise ValueError(f"n_points must be odd and >= 3, got {num_points}")
    if not (t_max > 0 and math.isfinite(t_max)):
        raise ValueError(f"t_max must be positive and finite, got {t_max}")
    if clip_mode not in CLIP_MODES:
        raise ValueError(f"clip_mode must be one of {CLIP_MODES}, got {clip_mode!r}")
    if reduction not in REDUCTIONS:
        raise ValueError(f"reduction must be one of {REDUCTIONS}, got {reduction!r}")


def sigreg_loss(x: torch.Tensor, A: Optional[torch.Tensor] = None, *, seed=None,
                num_slices: Optional[int] = None, num_points: int = 17, t_max: float = 3.0,
                clip_value: Optional[float] = None, clip_mode: str = "zero_below",
                reduction: str = "mean", group=None, distributed: Optional[bool] = None,
                backend: str = "auto") -> torch.Tensor:
    """The SIGReg loss of ``x`` ([N, D] or [V, N, D]; bf16, f16, f32 or f64).

    The projection is ``A`` [D, S] or the one of ``seed`` (an int or a 0-d integer tensor, with
    ``num_slices``). ``clip_value``
    None disables clipping; ``clip_mode`` 'zero_below' (LeJEPA's library) or 'clamp_min' (the
    seed's code). ``reduction`` 'mean', 'sum' or 'none' ([S] or [V, S]). ``distributed``
    (default: whether torch.distributed is initialized) averages the ECF over the ranks of
    ``group``; N_global = N * world size. ``backend``: 'torch' (torch ops), 'compiled' (this
    repository's compiled forward and backward, seeded projections on sm_90a GPUs; an error
    says why when they cannot run) or 'auto' (compiled where they can, else torch).
    """
    return _loss(x, A, seed, num_slices, num_points, t_max, clip_value, clip_mode, reduction,
                 group, distributed, backend)


def _loss(x, A, seed, num_slices, num_points, t_max, clip_value, clip_mode, reduction, group,
          distributed, backend, record: Optional[list] = None):
    """:func:`sigreg_loss`; ``record`` receives the whole-problem route when the call takes
    it (:func:`_whole_loss`)."""
    _check_knobs(num_slices, num_points, t_max, clip_mode, reduction)
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if x.dim() not in (2, 3):
        raise ValueError(f"x must be [N, D] or [V, N, D], got shape {tuple(x.shape)}")
    if x.dtype not in (torch.bfloat16, torch.float16, torch.float32, torch.float64):
        raise TypeError(f"x must be bf16, f16, f32 or f64, got {x.dtype}")
    views = x.dim() == 3
    x3 = x if views else x.unsqueeze(0)
    D = x3.shape[-1]
    if (A is None) == (seed is None):
        raise ValueError("give exactly one of A (a [D, S] projection) or seed")
    if x3.shape[1] < 1:
        raise ValueError("the batch is empty")
    if A is None:
        if num_slices is None:
            raise ValueError("num_slices is required with a seed")
        reduced = reduction != "none"
        # A single process in eager mode, no clip: the whole loss in one compiled call (traced
        # code keeps the custom ops of the split, which have fake implementations). A clipped
        # loss takes the split, whose gate is computed once from the means: the whole path's
        # two artifacts each compute their own statistics (the gradient's from its own
        # forward, with g rounded to 16 bits where the loss's keeps it split), so a slice
        # within rounding of the threshold could be clipped in the loss and not in dL/dx
        # (seen on the H200: V 2, N 300, S 104, clamp_min(0.5), reduction none).
        if (backend != "torch" and clip_value is None and not torch.compiler.is_compiling()
                and _single_process(distributed, group) and _compiled_obstacle(x3) is None):
            loss = _whole_loss(x, seed, int(num_slices), int(num_points), float(t_max),
                               clip_value, clip_mode, reduction, record)
            if loss is not None:
                return loss
        if _use_compiled(backend, x3, int(num_slices), int(num_points), float(t_max), reduced):
            if not isinstance(seed, torch.Tensor):
                seed = torch.tensor(int(seed), dtype=torch.long)
            args = (x3, seed.to(torch.long), int(num_slices), float(t_max), int(num_points),
                    reduced)
            cos, sin = (torch.ops.sigreg.ecf_compiled(*args) if torch.compiler.is_compiling()
                        else _EcfCompiled.apply(*args))
            return _statistic(x, x3, cos, sin, num_points, t_max, clip_value, clip_mode,
                              reduction, group, distributed)
        A = projection(seed, D, num_slices, device=x.device, dtype=_compute_dtype(x.dtype))
    elif backend == "compiled":
        raise CompiledBackendUnavailable("the compiled backend takes a seeded projection (it "
                                         "generates A in its kernels), not an explicit A")
    if A.dim() != 2 or A.shape[0] != D:
        raise ValueError(f"A must be [D, S] with D = {D}, got shape {tuple(A.shape)}")
    if num_slices is not None and A.shape[1] != int(num_slices):
        raise ValueError(f"A has {A.shape[1]} slices, num_slices is {num_slices}")
    A = A.detach().to(device=x.device)
    cos, sin = torch.ops.sigreg.ecf(x3, A, float(t_max), int(num_points))
    return _statistic(x, x3, cos, sin, num_points, t_max, clip_value, clip_mode, reduction,
                      group, distributed)


def _statistic(x, x3, cos, sin, num_points, t_max, clip_value, clip_mode, reduction, group,
               distributed):
    """The boundary (all-reduce of the local means), then the statistic, clip and reduction."""
    views = x.dim() == 3
    world = 1
    if _is_distributed(distributed):
        world = dist.get_world_size(group)
        cos, sin = _AllReduceMean.apply(cos, sin, group)
    ct = torch.float64 if x.dtype == torch.float64 else torch.float32
    _, phi, w = _grid(int(num_points), float(t_max), x.device, ct)
    n_global = x3.shape[1] * world
    loss = _EppsPulley.apply(cos.to(ct), sin.to(ct), phi, w, float(n_global),
                             None if clip_value is None else float(clip_value), clip_mode,
                             reduction)
    return loss if reduction != "none" or views else loss[0]


class _EppsPulley(torch.autograd.Function):
    """The statistic, the clip and the reduction of the global means (docs/CONTRACT.md
    section 1), with the backward of section 2 written out: the cotangents of the means,
    ``dcos = 2 n r gate w_p (cos - phi_p)`` and ``dsin = 2 n r gate w_p sin``. One autograd
    node instead of a dozen: the host time of a step is mostly per-node overhead."""

    @staticmethod
    def forward(ctx, cos, sin, phi, w, n_global, clip_value, clip_mode, reduction):
        d = cos - phi
        T = ((d * d + sin * sin) @ w) * n_global  # [V, S]
        keep = None
        if clip_value is not None:
            # Both modes pass the gradient where T >= clip_value only (zero_below replaces the
            # others by 0, clamp_min by the constant clip_value).
            keep = T >= clip_value
            T = torch.where(keep, T, torch.zeros_like(T) if clip_mode == "zero_below"
                            else torch.full_like(T, clip_value))
        ctx.save_for_backward(d, sin, w, keep)
        ctx.n_global, ctx.reduction = n_global, reduction
        if reduction == "mean":
            return T.mean()
        if reduction == "sum":
            return T.sum()
        return T

    @staticmethod
    def backward(ctx, g):
        d, sin, w, keep = ctx.saved_tensors
        V, S = d.shape[0], d.shape[1]
        if ctx.reduction == "none":
            r = g
        else:
            r = (g / (V * S) if ctx.reduction == "mean" else g).expand(V, S)
        if keep is not None:
            r = r * keep
        f = (r * (2.0 * ctx.n_global)).unsqueeze(-1) * w  # [V, S, P]
        return f * d, f * sin, None, None, None, None, None, None


# ---------------------------------------------------------------------------
# The module
# ---------------------------------------------------------------------------

class SIGReg(nn.Module):
    """SIGReg with LeJEPA's knobs and seeding.

    ``num_slices``, ``t_max``, ``n_points``, ``clip_value`` (None: no clip) with ``clip_mode``
    ('zero_below' as LeJEPA's library, 'clamp_min' as the seed's code) and ``reduction``. The
    projection is regenerated every call from ``global_step`` (a buffer; under
    torch.distributed it is first synchronized with an all-reduce MAX, then advanced by one),
    as LeJEPA does, unless a fixed ``seed`` or an explicit ``projection`` is given. The
    generator is the compiler's (docs/PROJECTION.md), not ``torch.randn``.
    """

    def __init__(self, num_slices: int = 1024, t_max: float = 3.0, n_points: int = 17,
                 clip_value: Optional[float] = None, clip_mode: str = "zero_below",
                 reduction: str = "mean", seed: Optional[int] = None,
                 projection: Optional[torch.Tensor] = None, group=None, backend: str = "auto"):
        super().__init__()
        _check_knobs(num_slices, n_points, t_max, clip_mode, reduction)
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
        self.backend = backend
        if seed is not None and projection is not None:
            raise ValueError("give a seed or a projection, not both")
        self.num_slices = int(num_slices)
        self.t_max = float(t_max)
        self.n_points = int(n_points)
        self.clip_value = clip_value
        self.clip_mode = clip_mode
        self.reduction = reduction
        self.seed = seed
        self.group = group
        self.register_buffer("global_step", torch.zeros((), dtype=torch.long))
        # The host's copy of global_step in a single process: (the buffer tensor, its version
        # counter after the module's last write, the value), so that a step does not read the
        # buffer back from the GPU (.item(), a synchronization) every call.
        self._host_step = None
        if projection is not None:
            if projection.dim() != 2 or projection.shape[1] != self.num_slices:
                raise ValueError(f"projection must be [D, {self.num_slices}], got {tuple(projection.shape)}")
            self.register_buffer("projection", projection.detach().clone())
        else:
            self.projection = None

    def extra_repr(self) -> str:
        clip = "none" if self.clip_value is None else f"{self.clip_mode}({self.clip_value})"
        return (f"num_slices={self.num_slices}, t_max={self.t_max}, n_points={self.n_points}, "
                f"clip={clip}, reduction={self.reduction}")

    def _distributed(self) -> bool:
        return _is_distributed()

    def next_seed(self) -> torch.Tensor:
        """The seed of this call, a 0-d tensor: ``global_step`` (synchronized, MAX over the
        ranks), which then advances by one."""
        with torch.no_grad():
            step = self.global_step.detach().clone()
            if self._distributed():
                backend = dist.get_backend(self.group)
                device = torch.device("cuda", torch.cuda.current_device()) if backend == "nccl" else "cpu"
                step = step.to(device)
                dist.all_reduce(step, op=dist.ReduceOp.MAX, group=self.group)
                step = step.to(self.global_step.device)
            self.global_step.copy_(step + 1)
        return step

    def precompile(self, shape, dtype: torch.dtype = torch.bfloat16):
        """:func:`precompile` with this module's knobs, for x of ``shape`` and ``dtype``."""
        return precompile(shape, dtype, self.num_slices, num_points=self.n_points,
                          t_max=self.t_max, clip_value=self.clip_value,
                          clip_mode=self.clip_mode, reduction=self.reduction)

    def _next_seed_value(self) -> int:
        """next_seed() of a single process in eager mode, as an int: the host's copy of the
        step while the buffer is the one the module last wrote (same tensor, same version
        counter, so load_state_dict, .to() or an in-place write by the caller are seen), read
        back once otherwise."""
        buf = self._buffers["global_step"]  # not through nn.Module.__getattr__
        mirror = self._host_step
        if mirror is not None and mirror[0] is buf and mirror[1] == buf._version:
            step = mirror[2]
        else:
            step = int(buf.item())
        # An integer buffer never requires grad: the write needs no torch.no_grad().
        buf.fill_(step + 1)
        self.__dict__["_host_step"] = (buf, buf._version, step + 1)  # not a knob (__setattr__)
        return step

    def _device_step_route(self, x: torch.Tensor):
        """The whole-problem route seeded from ``global_step`` on the GPU (a single process in
        eager mode, the module's own step): its kernels read the step there and the forward
        advances it, so that no launch writes the step from the host and a call replayed
        from a CUDA graph takes the next seed. None where it does not apply (the step on
        another device than x, a clip, the torch backend, no compiled artifacts, a loss per
        slice whose dL/dx autograd needs): the caller then seeds from the host."""
        buf = self._buffers["global_step"]
        if (self.backend == "torch" or self.clip_value is not None or x.dim() not in (2, 3)
                or buf.device != x.device or buf.dtype != torch.long or buf.dim() != 0):
            return None
        if _compiled_obstacle(x if x.dim() == 3 else x.unsqueeze(0)) is not None:
            return None
        return _whole_route(x, self.num_slices, self.n_points, self.t_max, None,
                            self.clip_mode, self.reduction, device_step=True)

    def _run_route(self, route, x: torch.Tensor) -> torch.Tensor:
        """Runs a remembered route: on global_step (a device-step route, the buffer on x's
        device), else seeded from the module's seed or its next step."""
        if route[3]:
            return self._run_device_step(route, x)
        seed = self.seed
        return _run_whole(route, x, self._next_seed_value() if seed is None
                          else _seed_value(seed))

    def _run_device_step(self, route, x: torch.Tensor) -> torch.Tensor:
        """Runs a _device_step_route on ``global_step``; the host's copy of the step advances
        with it (the kernels add one), and is dropped under CUDA-graph capture (a replay
        advances the step without the host)."""
        buf = self._buffers["global_step"]
        loss = _run_whole(route, x, buf)
        self._advance_host_step(buf, x)
        return loss

    def _advance_host_step(self, buf: torch.Tensor, x: torch.Tensor) -> None:
        """After a device-step call on ``buf``: the host's copy of the step advances with it,
        or is dropped (under CUDA-graph capture, or when it no longer describes ``buf``)."""
        mirror = self._host_step
        if mirror is None:
            return
        if mirror[0] is buf and mirror[1] == buf._version and not _capturing(x):
            self.__dict__["_host_step"] = (buf, buf._version, mirror[2] + 1)
        else:
            self.__dict__["_host_step"] = None

    # The fast path of forward. A call on an x takes sigreg_loss, which records the
    # whole-problem route it ran (_whole_route); the next calls on an x of the same shape,
    # dtype and device, with autograd needing dL/dx or not as then, run that route directly
    # when nothing else the route depends on can have changed: a single process in eager mode
    # (the seed from _next_seed_value) and the same knobs (setting any attribute forgets the
    # routes).
    _routes: Optional[dict] = None  # _route_key -> the route of _whole_route
    # The last route forward took, with its key's parts: (grad, shape, dtype, device, route,
    # the global_step tensor then, its direct call). A call like the one before it compares
    # those parts instead of building and hashing the key (0.4 us of the module's Python per
    # call on the CPU machine); where the route runs on global_step through an op
    # (_direct_call), it calls the op itself.
    _last: Optional[tuple] = None

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        d = self.__dict__
        d["_routes"] = None
        d["_last"] = None

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_routes", None)  # compiled functions hold the runtime's handles (no copies)
        state.pop("_last", None)
        return state

    def _route_key(self, x: torch.Tensor):
        """The fast path's cache key of this call, or None when the call must take
        sigreg_loss (traced code, or torch.distributed: the seed is synchronized)."""
        if torch.compiler.is_compiling() or self._distributed():
            return None
        return (torch.is_grad_enabled() and x.requires_grad, x.shape, x.dtype, x.device)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not torch.compiler.is_compiling():  # traced code never reads _last
            last = self._last
            if (last is not None and not (_DIST_AVAILABLE and dist.is_initialized())
                    and x.shape == last[1] and x.dtype == last[2] and x.device == last[3]
                    and (torch.is_grad_enabled() and x.requires_grad) == last[0]
                    and self._buffers["global_step"] is last[5]):
                direct = last[6]
                if direct is None:
                    return self._run_route(last[4], x)
                # _run_device_step through the op, flattened (each frame and lookup it saves
                # is host time of every call).
                op, handle, unit = direct
                buf = last[5]
                try:
                    loss = (op(x.contiguous(), handle, 0, buf) if unit is None
                            else op(x.contiguous(), handle, 0, buf, unit))
                except Exception as e:  # noqa: BLE001 (re-raised, or checked below)
                    _route_artifact(last[4])._op_failed(e)
                    return self._run_route(last[4], x)  # its checks say what is wrong
                if self._host_step is not None:
                    self._advance_host_step(buf, x)
                return loss
        key = self._route_key(x)
        routes = self._routes
        if key is not None and routes is not None:
            route = routes.get(key)
            if route is not None:
                if route[3] and self._buffers["global_step"].device != x.device:
                    route = None  # the step moved (.to()): ask again below
                else:
                    self.__dict__["_last"] = key + (route, self._buffers["global_step"],
                                                    _direct_call(route, x))
                    return self._run_route(route, x)
        knobs = dict(num_slices=self.num_slices, num_points=self.n_points, t_max=self.t_max,
                     clip_value=self.clip_value, clip_mode=self.clip_mode,
                     reduction=self.reduction, group=self.group, distributed=None,
                     backend=self.backend)
        if self.projection is not None:
            return sigreg_loss(x, self.projection, **knobs)
        if self.seed is not None:
            seed = self.seed
        elif key is None:
            seed = self.next_seed()
        else:
            route = self._device_step_route(x)
            if route is not None:
                self._remember_route(key, route)
                return self._run_device_step(route, x)
            seed = self._next_seed_value()
        record = [] if key is not None else None
        loss = _loss(x, None, seed, record=record, **knobs)
        if record:
            self._remember_route(key, record[0])
        return loss

    def _remember_route(self, key, route) -> None:
        """Keeps ``route`` for the next calls with ``key`` (the fast path of forward)."""
        if self._routes is None:
            self.__dict__["_routes"] = {}  # not a knob (__setattr__ forgets the routes)
        self._routes[key] = route
