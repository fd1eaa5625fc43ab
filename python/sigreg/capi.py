"""Compiled artifacts through the runtime's C ABI (include/sigreg/Runtime/CApi.h).

Python neither reads ``manifest.json`` nor drives the CUDA driver itself: both go through
``libsigreg_aot.so``, loaded with ctypes.

- ``describe(DIR)`` is what an artifact (docs/AOT.md) computes, as the runtime's manifest reader
  parsed and checked it (``sigreg_aot_describe``; no GPU needed): the :class:`Problem`, the
  buffers with their roles and sizes, the scalars, the steps and their regions. A manifest the
  reader rejects raises :class:`ManifestError` with its message (the key path).
- ``CapiFunction(DIR)`` runs the artifact with the C++ executor of ``sigreg-aot-run`` and
  ``sigreg-run``: one ``sigreg_aot_run`` call per step list, on torch's current stream, so
  calls order with torch work and can be captured in a CUDA graph. Buffers are bound to tensors
  by address. A binding is only redone when an address changes, because the runtime re-encodes
  its TMA descriptors then; the host cost of a call is a few ctypes calls.

The library is found at ``$SIGREG_AOT_LIB``, else in this repository's build folders (``build``,
``build-nomlir``) or ``/tmp/sigreg-build-nomlir`` (scripts/gpu-check.sh); build it with
``cmake -S . -B build-nomlir -DSIGREG_ENABLE_MLIR=OFF && cmake --build build-nomlir``.
"""

from __future__ import annotations

import ctypes
import functools
import json
import operator
import os
import warnings
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Tuple

from . import _ops

__all__ = ["CapiError", "ManifestError", "library_path", "load_library", "Problem", "Buffer", "Scalar",
           "Step", "Artifact", "describe", "call_bindings", "check_buffers", "CapiFunction"]

_REPO = Path(__file__).resolve().parents[2]


class CapiError(RuntimeError):
    pass


class ManifestError(CapiError):
    """A manifest the runtime's reader rejects, or one that breaks the harness conventions
    (include/sigreg/Runtime/Harness.h); the message is the runtime's."""


def library_path() -> Optional[str]:
    env = os.environ.get("SIGREG_AOT_LIB")
    if env:
        return env
    for d in (_REPO / "build" / "lib", _REPO / "build-nomlir" / "lib", Path("/tmp/sigreg-build-nomlir/lib")):
        p = d / "libsigreg_aot.so"
        if p.is_file():
            return str(p)
    return None


_LIB = None
_LIB_PATH: Optional[str] = None


def loaded_library_path() -> Optional[str]:
    """The path :func:`load_library` loaded the runtime from (None before it did)."""
    return _LIB_PATH


def load_library():
    """The C ABI as a ctypes library (loaded once), with its signatures declared."""
    global _LIB, _LIB_PATH
    if _LIB is not None:
        return _LIB
    path = library_path()
    if path is None:
        raise CapiError("libsigreg_aot.so not found: set SIGREG_AOT_LIB or build the runtime "
                        "(cmake -S . -B build-nomlir -DSIGREG_ENABLE_MLIR=OFF && cmake --build build-nomlir)")
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise CapiError(f"cannot load {path}: {e}") from None
    for symbol in ("sigreg_aot_describe", "sigreg_aot_run_phase", "sigreg_aot_device_bytes",
                   "sigreg_aot_load_device"):
        if not hasattr(lib, symbol):
            raise CapiError(f"{path} predates {symbol}: rebuild the runtime")
    h = ctypes.c_void_p
    lib.sigreg_aot_describe.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p)]
    lib.sigreg_aot_load.argtypes = [ctypes.c_char_p, ctypes.POINTER(h)]
    lib.sigreg_aot_load_device.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(h)]
    lib.sigreg_aot_load_error.restype = ctypes.c_char_p
    lib.sigreg_aot_bind.argtypes = [h, ctypes.c_char_p, ctypes.c_uint64]
    lib.sigreg_aot_buffer_bytes.argtypes = [h, ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint64)]
    lib.sigreg_aot_device_bytes.argtypes = [h, ctypes.POINTER(ctypes.c_uint64)]
    lib.sigreg_aot_set_seed.argtypes = [h, ctypes.c_int64]
    lib.sigreg_aot_run.argtypes = [h, ctypes.c_void_p]
    lib.sigreg_aot_run_phase.argtypes = [h, ctypes.c_int, ctypes.c_void_p]
    if hasattr(lib, "sigreg_aot_call"):  # older libraries: CapiFunction binds and runs
        lib.sigreg_aot_call.argtypes = [h, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64,
                                        ctypes.c_uint64, ctypes.c_int64]
    lib.sigreg_aot_synchronize.argtypes = [h]
    lib.sigreg_aot_last_error.argtypes = [h]
    lib.sigreg_aot_last_error.restype = ctypes.c_char_p
    lib.sigreg_aot_destroy.argtypes = [h]
    lib.sigreg_aot_destroy.restype = None
    _LIB, _LIB_PATH = lib, path
    return lib


# ---------------------------------------------------------------------------
# The description (sigreg_aot_describe)
# ---------------------------------------------------------------------------


@dataclass
class Problem:
    """The manifest's ``problem``, every default filled in by the runtime's reader."""

    N: int
    D: int
    S: int
    dtype: str
    V: int = 1
    P: int = 17
    t_max: float = 3.0
    clip: str = "none"
    clip_value: float = 0.0
    reduction: str = "mean"
    projection: str = "seed"
    views: bool = False
    gradient: bool = False  # dL/dx of sigreg.loss_grad (input 'grad', output [x's shape])
    # A training step: the loss and dL/dx in one artifact (input 'grad', outputs 'out' and 'dx').
    step: bool = False
    # A step's dx: "f32", or the input's dtype (dL/dx rounded to it).
    dx_dtype: str = "f32"
    # The DDP split's entry points (docs/TORCH.md): "ecf" (outputs cos, sin [V, S, P]) or
    # "ecf_backward" (inputs dcos, dsin [V, S, P], output dL/dx [V, N, D]); "" otherwise.
    entry_point: str = ""

    def x_shape(self) -> Tuple[int, ...]:
        return (self.V, self.N, self.D) if self.views else (self.N, self.D)

    def out_shape(self) -> Tuple[int, ...]:
        """The loss's shape: () for mean/sum, [S] or [V, S] for reduction none."""
        if self.reduction != "none":
            return ()
        return (self.V, self.S) if self.views else (self.S,)


@dataclass
class Buffer:
    name: str
    role: str  # input | output | workspace
    bytes: int
    dtype: Optional[str] = None
    shape: Optional[Tuple[int, ...]] = None
    zero_init: bool = False
    # A workspace that may live ``shares[1]`` bytes into the output ``shares[0]``: one
    # allocation of max(that output's bytes, offset + bytes) serves both (docs/AOT.md).
    shares: Optional[Tuple[str, int]] = None


@dataclass
class Scalar:
    name: str
    type: str  # i32 | i64 | f32 | f64


@dataclass
class Step:
    op: str  # launch | copy | memset32 | memset8
    region: str
    kernel: Optional[str] = None  # launch steps
    # "forward", or "backward": the last steps of a phased step artifact, which alone read
    # 'grad' (run with CapiFunction.run_phase).
    phase: str = "forward"
    buffers: Tuple[str, ...] = ()  # a launch's buffer arguments, once each


@dataclass
class Artifact:
    """An artifact directory as ``sigreg_aot_describe`` read it."""

    path: str
    format: str
    function: str
    pipeline: str
    chip: str
    ptx: str
    problem: Optional[Problem]
    # Why the buffers and scalars break the harness conventions, or None when they follow them.
    conventions_error: Optional[str]
    output: Optional[str]  # the loss output's name ("out", or the only output)
    buffers: List[Buffer]
    scalars: List[Scalar]
    steps: List[Step]
    _io: Optional[Dict[str, Tuple[str, int]]] = field(default=None, repr=False, compare=False)

    def buffer(self, name: str) -> Buffer:
        for b in self.buffers:
            if b.name == name:
                return b
        raise KeyError(name)

    def has_buffer(self, name: str) -> bool:
        return any(b.name == name for b in self.buffers)

    def buffers_with_role(self, role: str) -> List[Buffer]:
        return [b for b in self.buffers if b.role == role]

    def phased(self) -> bool:
        """Whether the steps split into a forward and a backward phase (docs/AOT.md)."""
        return any(s.phase == "backward" for s in self.steps)

    def backward_workspaces(self) -> List[Buffer]:
        """The workspaces the backward phase reads: what its forward phase leaves for it. A
        caller that runs several forward phases before their backward phases binds its own
        buffers to them per call (see sigreg.torch)."""
        names = {n for s in self.steps if s.phase == "backward" for n in s.buffers}
        return [b for b in self.buffers if b.role == "workspace" and b.name in names]

    def kernels(self) -> List[str]:
        """Distinct kernel names in order of first launch."""
        return list(OrderedDict.fromkeys(s.kernel for s in self.steps if s.op == "launch"))

    def num_launches(self) -> int:
        return sum(1 for s in self.steps if s.op == "launch")

    def regions(self) -> "OrderedDict[str, List[int]]":
        """Region name -> indices of its steps, in order of first appearance."""
        out: "OrderedDict[str, List[int]]" = OrderedDict()
        for i, s in enumerate(self.steps):
            out.setdefault(s.region, []).append(i)
        return out

    def check_conventions(self) -> None:
        """Raises ManifestError unless the artifact follows the harness conventions (a problem,
        input 'x', 'proj' when explicit, the entry point's f32 inputs and outputs)."""
        if self.conventions_error is not None:
            raise ManifestError(f"{self.path}: {self.conventions_error}")


def _artifact(path: str, d: Mapping) -> Artifact:
    p = d["problem"]
    return Artifact(
        path=path, format=d["format"], function=d["function"], pipeline=d["pipeline"], chip=d["chip"],
        ptx=d["ptx"], problem=Problem(**dict(p, t_max=float(p["t_max"]), clip_value=float(p["clip_value"])))
        if p is not None else None,
        conventions_error=d["conventions_error"], output=d["output"],
        buffers=[Buffer(b["name"], b["role"], b["bytes"], b["dtype"],
                        tuple(b["shape"]) if b["shape"] is not None else None, b["zero_init"],
                        (b["shares"]["buffer"], b["shares"]["offset"]) if b.get("shares") else None)
                 for b in d["buffers"]],
        scalars=[Scalar(s["name"], s["type"]) for s in d["scalars"]],
        steps=[Step(s["op"], s["region"], s.get("kernel"), s["phase"], tuple(s.get("buffers", ())))
               for s in d["steps"]])


def describe(artifact_dir) -> Artifact:
    """What the artifact in ``artifact_dir`` computes, from the runtime's manifest reader (no GPU).
    Raises ManifestError with the reader's message when it rejects the manifest."""
    lib = load_library()
    text = ctypes.c_char_p()
    path = str(artifact_dir)
    if lib.sigreg_aot_describe(path.encode(), ctypes.byref(text)) != 0:
        raise ManifestError(lib.sigreg_aot_load_error().decode(errors="replace"))
    return _artifact(path, json.loads(text.value.decode(errors="replace")))


# ---------------------------------------------------------------------------
# Argument checks (no GPU)
# ---------------------------------------------------------------------------

_TORCH_DTYPES = {"bf16": "bfloat16", "f16": "float16", "f32": "float32", "i64": "int64"}


def _torch_dtype(torch, name: str):
    return getattr(torch, _TORCH_DTYPES[name])


def _expected(info: Artifact, name: str) -> Tuple[str, int]:
    """(dtype, bytes) of an input or output a caller binds: x and proj in the problem's dtype,
    a step's dx in its dx_dtype, a device step's counter ``step`` int64, the others f32 (the
    conventions the artifact was checked against)."""
    if info._io is None:
        p = info.problem
        info._io = {b.name: (p.dtype if b.name in ("x", "proj")
                             else p.dx_dtype if b.name == "dx" and p.step
                             else "i64" if b.name == "step" and p.projection == "step"
                             else "f32", b.bytes)
                    for b in info.buffers if b.role != "workspace"}
    return info._io[name]


def _check_tensor(torch, t, name: str, dtype: str, nbytes: int) -> None:
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"'{name}' must be a torch.Tensor, got {type(t).__name__}")
    want = _torch_dtype(torch, dtype)
    if t.dtype != want:
        raise TypeError(f"'{name}' is {t.dtype}, the artifact takes {want}")
    if t.numel() * t.element_size() != nbytes:
        raise ValueError(f"'{name}' has shape {tuple(t.shape)} ({t.numel() * t.element_size()} bytes), "
                         f"the artifact's buffer has {nbytes} bytes")
    if not t.is_contiguous():
        raise ValueError(f"'{name}' must be contiguous")


def _check_device(t, name: str, device: Optional[int]) -> None:
    """``t`` is a CUDA tensor, on cuda:``device`` when that is given (the device the artifact
    was loaded on)."""
    if not t.is_cuda:
        raise ValueError(f"'{name}' must be a CUDA tensor, it is on {t.device}")
    if device is not None and t.get_device() != device:
        raise ValueError(f"'{name}' is on {t.device}, the artifact was loaded on cuda:{device}")


def _check_tensors(torch, info: Artifact, tensors: Mapping[str, object],
                   device: Optional[int] = None) -> None:
    for name, t in tensors.items():
        _check_tensor(torch, t, name, *_expected(info, name))
    for name, t in tensors.items():  # last, so that the checks above run without a GPU
        _check_device(t, name, device)


def _check_seed(info: Artifact, seed) -> None:
    if info.problem.projection == "step" and seed is not None:
        raise ValueError("this artifact reads its seed from the step counter (an int64 tensor "
                         "bound as 'step', which each run advances by one): seed= is not used")
    if info.problem.projection == "seed":
        if seed is None:
            raise ValueError("this artifact generates its projection: pass seed=")
        try:
            value = operator.index(seed)
        except TypeError:
            value = None
        if value is None or isinstance(seed, bool) or not -(2 ** 63) <= value < 2 ** 63:
            raise ValueError(f"seed must be an int64, got {seed!r}")


def call_bindings(torch, info: Artifact, x, seed=None, proj=None, grad=None, out=None,
                  step=None, device: Optional[int] = None) -> Dict[str, object]:
    """The buffers a call ``f(x, seed, proj, grad, out, step)`` binds, by name, after checking
    every argument against the description (``out`` may be None: the caller allocates it) and,
    with ``device``, that every tensor is on cuda:``device``."""
    p = info.problem
    if p.entry_point:
        raise ValueError(f"the {p.entry_point} entry point is run with .run(buffers), not called")
    _check_seed(info, seed)
    binds = {"x": x}
    if p.projection == "explicit":
        if proj is None:
            raise ValueError("this artifact takes an explicit projection: pass proj= ([D, S])")
        binds["proj"] = proj
    elif proj is not None:
        raise ValueError("this artifact generates its projection from the seed; proj= is not used")
    if p.projection == "step":
        if step is None:
            raise ValueError("this artifact reads its seed from a step counter: pass step= (a "
                             "0-d int64 CUDA tensor, advanced by one per call)")
        binds["step"] = step
    elif step is not None:
        raise ValueError("step= is for artifacts seeded from a step counter; this one is not")
    if p.step:
        raise ValueError("a step artifact has two outputs (out, dx): run it with .run(buffers)")
    if p.gradient:
        if grad is None:
            raise ValueError("a gradient artifact needs grad= (the loss's cotangent)")
        binds["grad"] = grad
    elif grad is not None:
        raise ValueError("grad= is for gradient artifacts; this one computes the loss")
    if out is not None:
        binds[info.output] = out
    _check_tensors(torch, info, binds, device)
    return binds


def check_buffers(torch, info: Artifact, buffers: Mapping[str, object], seed=None,
                  device: Optional[int] = None) -> None:
    """Checks the tensors of ``run(buffers, seed)``: every input and output of the artifact, by
    name, each of its buffer's dtype and size (and on cuda:``device`` when given)."""
    names = {b.name for b in info.buffers if b.role in ("input", "output")}
    if set(buffers) != names:
        missing, extra = names - set(buffers), set(buffers) - names
        raise ValueError(f"the artifact takes {sorted(names)}: missing {sorted(missing)}, "
                         f"unknown {sorted(extra)}")
    _check_seed(info, seed)
    _check_tensors(torch, info, buffers, device)


# The fast path of a call's checks: what the checks above accept, tested with a few attribute
# reads against constants computed once per artifact. When a test fails, the full checks run
# and raise with their messages, so a bad call sees exactly the errors above.

_INT64_MIN, _INT64_MAX = -(2 ** 63), 2 ** 63 - 1


def _seed_fits(seed) -> bool:
    """A seed the artifacts take: an int (not a bool) in int64's range."""
    return type(seed) is int and _INT64_MIN <= seed <= _INT64_MAX


def _matches(t, tensor, want: Tuple[object, int], device: int) -> bool:
    """``t`` is a contiguous tensor of ``want``'s (dtype, element count) on CUDA ``device``."""
    return (isinstance(t, tensor) and t.dtype == want[0] and t.numel() == want[1]
            and t.is_contiguous() and t.get_device() == device)


@dataclass(frozen=True)
class _CallSpec:
    """Per-artifact constants of the checks: each input and output's torch dtype and element
    count, by name, whether a seed is required, and the device index of the artifact."""

    tensors: Dict[str, Tuple[object, int]]
    seeded: bool
    device: int

    @staticmethod
    def of(torch, info: Artifact, device: int) -> "_CallSpec":
        tensors = {}
        for b in info.buffers:
            if b.role != "workspace":
                dtype, nbytes = _expected(info, b.name)
                want = _torch_dtype(torch, dtype)
                size = want.itemsize
                # A size that is not a whole number of elements matches no tensor: the full
                # check then says so.
                tensors[b.name] = (want, nbytes // size if nbytes % size == 0 else -1)
        return _CallSpec(tensors, info.problem.projection == "seed", device)

    def _seed_ok(self, seed) -> bool:
        return not self.seeded or _seed_fits(seed)

    def _tensors_ok(self, torch, tensors: Mapping[str, object],
                    workspaces: Mapping[str, int]) -> bool:
        """Every tensor CUDA on the artifact's device and contiguous: an input or output of its
        dtype and size, or a workspace (``workspaces``: name -> bytes) of at least its bytes."""
        spec, tensor, device = self.tensors, torch.Tensor, self.device
        for name, t in tensors.items():
            want = spec.get(name)
            if want is not None:
                if not _matches(t, tensor, want, device):
                    return False
                continue
            size = workspaces.get(name)
            if (size is None or not isinstance(t, tensor) or not t.is_contiguous()
                    or t.get_device() != device or t.numel() * t.element_size() < size):
                return False
        return True

    def accepts_phase(self, torch, phase: str, tensors: Mapping[str, object], seed,
                      workspaces: Mapping[str, int]) -> bool:
        """Whether run_phase's checks pass, without raising: _tensors_ok, and the forward
        phase without grad and with a valid seed (none for an unseeded artifact)."""
        if phase == "forward" and ("grad" in tensors or not self._seed_ok(seed)
                                   or (not self.seeded and seed is not None)):
            return False
        return self._tensors_ok(torch, tensors, workspaces)

    def accepts(self, torch, tensors: Mapping[str, object], seed, exact: bool) -> bool:
        """Whether _check_seed and _check_tensors pass, without raising (``exact``: the names
        are every input and output, as check_buffers wants; else a subset)."""
        if not self._seed_ok(seed) or (exact and len(tensors) != len(self.tensors)):
            return False
        return self._tensors_ok(torch, tensors, {})


@dataclass(frozen=True)
class _FastCall:
    """A call's usual form, checked and run in one step (CapiFunction.__call__): x, the one
    other input ``aux`` ("proj", "step", "grad" or None), each of its dtype and element count,
    the output's shape, whether the seed is taken, the artifact's device, and the op that runs
    it where the ops are loaded."""

    aux: Optional[str]
    x: Tuple[object, int]
    aux_want: Optional[Tuple[object, int]]
    out_shape: Tuple[int, ...]
    seeded: bool
    device: int
    # torch.ops.sigreg.call.default where the ops are loaded (sigreg._ops.op), with the handle
    # it takes; None: through ctypes.
    op: object = None
    handle: int = 0

    def accepts(self, tensor, x, aux, seed) -> bool:
        """_CallSpec.accepts for these two tensors and the seed."""
        return (_matches(x, tensor, self.x, self.device)
                and (not self.seeded or _seed_fits(seed))
                and (self.aux_want is None or _matches(aux, tensor, self.aux_want, self.device)))


_RAW_STREAM = None


def _current_stream(torch, device_index: int) -> int:
    """The raw handle of torch's current stream on CUDA device ``device_index``:
    ``torch._C._cuda_getCurrentRawStream`` (an int, what inductor's generated code uses) where
    this torch has it, else ``torch.cuda.current_stream(...).cuda_stream`` (builds a Stream
    object per call, a few microseconds)."""
    global _RAW_STREAM
    if _RAW_STREAM is None:
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        _RAW_STREAM = raw if raw is not None else (
            lambda index: torch.cuda.current_stream(index).cuda_stream)
    return _RAW_STREAM(device_index)


# ---------------------------------------------------------------------------
# CapiFunction
# ---------------------------------------------------------------------------


class CapiFunction:
    """An artifact callable on torch tensors: ``f(x, seed=7)`` (seeded), ``f(x, proj=A)``
    (explicit), ``f(x, step=counter)`` (seeded from an int64 step counter on the GPU, which
    each call advances by one), ``f(x, seed, grad=g)`` (gradient artifacts); ``out`` to write into. Returns the
    f32 output: the loss (0-d), the statistics ([S] or [V, S]), or dL/dx (x's shape). The DDP
    split's entry points run with :meth:`run`. Every tensor must be contiguous, on the GPU, and
    of its buffer's dtype and size (x: the problem's dtype and ``problem.x_shape()``), on the
    device the artifact was loaded on: ``device`` (an index, "cuda:N" or a torch.device; default
    torch's current device), ``device_index`` after loading. Artifacts of several devices may
    live in one process; a call makes its device's primary context (torch's) current on the
    calling thread."""

    # The handle as the ops took it (sigreg._ops.register: they own it from then on), or None:
    # ctypes only.
    _oph: Optional[int] = None

    def __init__(self, artifact_dir: str, device=None):
        import torch  # noqa: PLC0415 (lazy on purpose)

        self._torch = torch
        self.artifact_dir = str(artifact_dir)
        self.info: Artifact = describe(artifact_dir)
        self.info.check_conventions()
        self.problem: Problem = self.info.problem  # type: ignore[assignment]
        d = None
        if device is not None:
            try:
                d = (torch.device("cuda", device) if isinstance(device, int)
                     else torch.device(device))
            except (RuntimeError, TypeError) as e:
                raise CapiError(f"not a CUDA device: {device!r} ({e})") from None
            if d.type != "cuda":
                raise CapiError(f"artifacts run on CUDA devices, not {d}")
        if not torch.cuda.is_available():
            raise CapiError("torch sees no CUDA device")
        torch.cuda.init()
        index = d.index if d is not None and d.index is not None else torch.cuda.current_device()
        if not 0 <= index < torch.cuda.device_count():
            raise CapiError(f"no device cuda:{index} ({torch.cuda.device_count()} device(s))")
        self.device_index: int = index
        torch.zeros(1, device=torch.device("cuda", index))  # its primary context exists
        self._lib = load_library()
        handle = ctypes.c_void_p()
        if self._lib.sigreg_aot_load_device(self.artifact_dir.encode(), index,
                                            ctypes.byref(handle)) != 0:
            raise CapiError(f"sigreg_aot_load_device({artifact_dir}, {index}): "
                            f"{self._lib.sigreg_aot_load_error().decode(errors='replace')}")
        self._h = handle
        self._bound: Dict[str, int] = {}
        self._seed: Optional[int] = None
        try:
            self._oph = _ops.register(self)
        except (RuntimeError, ValueError) as e:
            warnings.warn(f"sigreg: the ops do not take {self.artifact_dir} ({e}); running it "
                          "through ctypes", RuntimeWarning, stacklevel=2)

    # -- info -------------------------------------------------------------------
    @property
    def num_launches(self) -> int:
        return self.info.num_launches()

    def regions(self) -> List[Dict[str, object]]:
        """One entry per region (order of first appearance): its steps, launches and kernels."""
        out = []
        for region, idx in self.info.regions().items():
            steps = [self.info.steps[i] for i in idx]
            kernels = [s.kernel for s in steps if s.op == "launch"]
            out.append({"region": region, "steps": idx, "launches": len(kernels), "kernels": kernels,
                        "other_ops": [s.op for s in steps if s.op != "launch"]})
        return out

    def workspace_bytes(self) -> int:
        return sum(b.bytes for b in self.info.buffers_with_role("workspace"))

    def __repr__(self) -> str:
        p = self.problem
        return (f"{type(self).__name__}({self.artifact_dir!r}, pipeline={self.info.pipeline!r}, V={p.V} N={p.N} "
                f"D={p.D} S={p.S} P={p.P} {p.dtype}, {len(self.info.steps)} steps, {self.num_launches} launches)")

    # -- call -------------------------------------------------------------------
    # The host cost of a call is what a training step pays every iteration: the checks take
    # their fast path (_CallSpec), addresses and the seed are passed to the runtime only when
    # they change, and the stream is read as a raw handle.

    @functools.cached_property
    def phased(self) -> bool:
        """Whether the artifact runs in two phases (run_phase)."""
        return self.info.phased()

    @functools.cached_property
    def backward_workspaces(self) -> List[Buffer]:
        return self.info.backward_workspaces()

    @functools.cached_property
    def _buffers_by_name(self) -> Dict[str, Buffer]:
        return {b.name: b for b in self.info.buffers}

    @functools.cached_property
    def _spec(self) -> _CallSpec:
        return _CallSpec.of(self._torch, self.info, self.device_index)

    @functools.cached_property
    def _fast(self) -> Optional[_FastCall]:
        """The one-call form of __call__ (sigreg_aot_call), or None: an entry point, a step, a
        gradient with a second input besides grad, a library without sigreg_aot_call, or
        SIGREG_NO_ONE_CALL=1 in the environment (bind, seed and run as before it existed)."""
        p = self.problem
        if (p.entry_point or p.step or not hasattr(self._lib, "sigreg_aot_call")
                or os.environ.get("SIGREG_NO_ONE_CALL", "0") not in ("", "0")):
            return None
        aux = {"explicit": "proj", "step": "step"}.get(p.projection)
        if p.gradient:
            if aux is not None:
                return None
            aux = "grad"
        spec = self._spec
        op = _ops.op("call") if self._oph is not None else None
        return _FastCall(aux, spec.tensors["x"], spec.tensors[aux] if aux else None,
                         tuple(p.x_shape() if p.gradient else p.out_shape()), spec.seeded,
                         self.device_index, op, self._oph or 0)

    @functools.cached_property
    def _step_ops(self):
        """``(op, handle, seeded)`` of the op that runs this training step with its autograd
        node in C++ (``torch.ops.sigreg.step_phased`` for a phased step, ``step`` otherwise:
        what sigreg.torch's _StepPhased and _StepCompiled do), or None (not a step, or no ops)."""
        if self._oph is None or not self.problem.step:
            return None
        return _ops.op("step_phased" if self.phased else "step"), self._oph, self._spec.seeded

    def _op_failed(self, e: BaseException) -> None:
        """After an op raised ``e``: a failure of the runtime raises what the ctypes path
        raises (CapiError("call: ...")); a refusal of the arguments returns, and the caller
        then runs the checks that say what is wrong (nothing ran)."""
        err = _ops.runtime_error(e, CapiError)
        if err is not None:
            raise err from None

    def _check(self, rc: int, what: str):
        if rc != 0:
            raise CapiError(f"{what}: {self._lib.sigreg_aot_last_error(self._h).decode(errors='replace')}")

    def _bind_all(self, tensors: Mapping[str, object]) -> None:
        """Binds each tensor whose address changed since its last binding (the runtime then
        re-encodes the TMA descriptors that refer to it)."""
        bound = self._bound
        if self._oph is not None:
            bound.clear()  # the ops bind behind this record
        for name, t in tensors.items():
            ptr = t.data_ptr()
            if bound.get(name) != ptr:
                self._check(self._lib.sigreg_aot_bind(self._h, name.encode(), ptr), f"bind {name}")
                bound[name] = ptr

    def _set_seed(self, seed) -> None:
        if self._spec.seeded and (seed != self._seed or self._oph is not None):
            self._check(self._lib.sigreg_aot_set_seed(self._h, int(seed)), "set_seed")
            self._seed = seed

    def _enqueue(self, tensor) -> None:
        """Runs the steps on torch's current stream of ``tensor``'s device."""
        # 0 would mean the runtime's own stream: torch's default stream is the
        # legacy stream, CU_STREAM_LEGACY (1). A plain int converts to the c_void_p argument.
        stream = _current_stream(self._torch, tensor.get_device()) or 1
        rc = self._lib.sigreg_aot_run(self._h, stream)
        if rc != 0:
            self._check(rc, "run")

    def __call__(self, x, seed: Optional[int] = None, proj=None, grad=None, out=None, step=None):
        torch, p = self._torch, self.problem
        # The fastest path: the usual form (no out=, the one other input the artifact takes)
        # checked against per-artifact constants, then one C call binds, seeds and runs.
        fast = self._fast
        if fast is not None and out is None:
            a = fast.aux
            aux = proj if a == "proj" else step if a == "step" else grad if a == "grad" else None
            given = (proj is not None) + (step is not None) + (grad is not None)
            if given == (aux is not None) and fast.op is not None:
                # torch.ops.sigreg.call (sigreg._ops): the op checks the tensors itself and
                # allocates the output (its shape registered with the handle); the seed is
                # checked here (the op would take a bool or refuse a wider int with another
                # message). A refusal falls to the checks below.
                if not fast.seeded or _seed_fits(seed):
                    try:
                        return fast.op(x, fast.handle, seed if fast.seeded else 0, aux)
                    except Exception as e:  # noqa: BLE001 (re-raised or checked below)
                        self._op_failed(e)
            elif given == (aux is not None) and fast.accepts(torch.Tensor, x, aux, seed):
                out = x.new_empty(fast.out_shape, dtype=torch.float32)
                stream = _current_stream(torch, fast.device) or 1
                rc = self._lib.sigreg_aot_call(self._h, stream, x.data_ptr(),
                                               0 if aux is None else aux.data_ptr(),
                                               out.data_ptr(), seed if fast.seeded else 0)
                # The runtime's bindings and seed changed behind _bind_all and _set_seed.
                self._bound.clear()
                self._seed = None
                if rc != 0:
                    self._check(rc, "call")
                return out
        binds = None
        # The fast path: the arguments call_bindings accepts without a message, in the usual
        # form (proj= exactly for an explicit projection, step= exactly for a step counter,
        # grad= exactly for a gradient).
        if not (p.entry_point or p.step) and (proj is None) == (p.projection != "explicit") \
                and (step is None) == (p.projection != "step") and (grad is None) != p.gradient:
            binds = {"x": x}
            if proj is not None:
                binds["proj"] = proj
            if step is not None:
                binds["step"] = step
            if grad is not None:
                binds["grad"] = grad
            if out is not None:
                binds[self.info.output] = out
            if not self._spec.accepts(torch, binds, seed, exact=False):
                binds = None
        if binds is None:
            binds = call_bindings(torch, self.info, x, seed=seed, proj=proj, grad=grad, out=out,
                                  step=step, device=self.device_index)
        if out is None:
            shape = p.x_shape() if p.gradient else p.out_shape()
            out = x.new_empty(shape, dtype=torch.float32)
            binds[self.info.output] = out
        self._bind_all(binds)
        self._set_seed(seed)
        self._enqueue(x)
        return out

    def run(self, buffers: Dict[str, "object"], seed: Optional[int] = None) -> None:
        """Runs the artifact on named tensors: every input and output of the manifest, by name,
        e.g. ``x``, ``cos`` and ``sin`` for the ``ecf`` entry point; ``seed`` for a seeded
        projection. On torch's current stream, like ``__call__``."""
        if not self._spec.accepts(self._torch, buffers, seed, exact=True):
            check_buffers(self._torch, self.info, buffers, seed, device=self.device_index)
        self._bind_all(buffers)
        self._set_seed(seed)
        self._enqueue(buffers["x"])  # every artifact takes x (check_conventions)

    _PHASES = {"forward": 1, "backward": 2}

    def run_phase(self, phase: str, buffers: Dict[str, "object"], seed: Optional[int] = None) -> None:
        """Runs one phase of a phased step artifact (docs/AOT.md) on named tensors: ``forward``
        (x, out, and proj or the seed; it must not be given grad), then ``backward`` (grad, dx).
        Either may also bind workspaces by name (``info.backward_workspaces()``: each at least
        its buffer's size), so that several forward phases can run before their backward
        phases, each with its own copy of what the backward phase reads. A binding stays until
        it changes. On torch's current stream of the first tensor given."""
        torch = self._torch
        code = self._PHASES.get(phase) if self.phased else None
        # The fast path: arguments the checks below accept (the usual call of a training step).
        if code is None or not self._spec.accepts_phase(torch, phase, buffers, seed,
                                                        self._workspace_bytes):
            self._check_phase_call(phase, buffers, seed)
        self._bind_all(buffers)
        if code == 1:
            self._set_seed(seed)
        first = next(iter(buffers.values()))
        stream = _current_stream(torch, first.get_device()) or 1
        rc = self._lib.sigreg_aot_run_phase(self._h, code, stream)
        if rc != 0:
            self._check(rc, f"run_phase({phase})")

    @functools.cached_property
    def _workspace_bytes(self) -> Dict[str, int]:
        return {b.name: b.bytes for b in self.info.buffers if b.role == "workspace"}

    def _check_phase_call(self, phase: str, buffers: Dict[str, "object"], seed) -> None:
        """run_phase's checks, each failure a ValueError that says what is wrong."""
        torch, info = self._torch, self.info
        if phase not in self._PHASES:
            raise ValueError(f"phase must be 'forward' or 'backward', got {phase!r}")
        if not self.phased:
            raise ValueError(f"{self.artifact_dir} has no backward phase: run it with .run()")
        if phase == "forward" and "grad" in buffers:
            raise ValueError("the forward phase does not read grad: bind it for the backward phase")
        roles = self._buffers_by_name
        for name, t in buffers.items():
            b = roles.get(name)
            if b is None:
                raise ValueError(f"the artifact has no buffer {name!r}")
            if b.role == "workspace":
                if not isinstance(t, torch.Tensor) or not t.is_contiguous():
                    raise ValueError(f"workspace {name!r} must be a contiguous tensor")
                if t.numel() * t.element_size() < b.bytes:
                    raise ValueError(f"workspace {name!r} needs {b.bytes} bytes, got "
                                     f"{t.numel() * t.element_size()}")
            else:
                _check_tensor(torch, t, name, *_expected(info, name))
            _check_device(t, name, self.device_index)
        if phase == "forward":
            _check_seed(info, seed)

    def device_bytes(self) -> int:
        """Device memory the runtime holds for this artifact: the buffers it allocated itself
        (only those a call ran unbound, and the zero_init counters), in bytes."""
        n = ctypes.c_uint64()
        self._check(self._lib.sigreg_aot_device_bytes(self._h, ctypes.byref(n)), "device_bytes")
        return n.value

    def close(self):
        if getattr(self, "_h", None):
            if getattr(self, "_oph", None) is not None:
                # The ops own the handle: destroyed now, or by the last autograd node that
                # holds it.
                _ops.release(self._oph)
                self._oph = None
            else:
                self._lib.sigreg_aot_destroy(self._h)
            self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 (interpreter shutdown)
            pass
