"""Run a sigreg-aot-v1 artifact (``manifest.json`` + PTX) from Python, in torch's process.

The artifact format is specified in ``lib/Runtime/Manifest.cpp`` (header comment); the
buffer and scalar conventions in ``include/sigreg/Runtime/Harness.h``:

- input ``x`` ``[V, N, D]`` (views) or ``[N, D]`` in ``problem.dtype``; optional input
  ``proj`` ``[D, S]`` (explicit projection); output ``out`` (f32: one element for
  mean/sum, ``[S]`` or ``[V, S]`` for reduction none); workspaces; scalar ``seed``
  (i64 or i32) and optional integer scalars ``V N D S P`` set from the problem.
- ``steps`` run in order on one stream: ``launch`` (cuLaunchKernel), ``copy``
  (cuMemcpyDtoDAsync), ``memset32`` (cuMemsetD32Async), ``memset8``.
- kernel arguments: ``{"buffer": name, "offset": bytes}`` (a CUdeviceptr),
  ``{"scalar": name}`` (the scalar's declared type), literals ``i32 i64 f32 f64``,
  ``{"tensor_map": {...}}`` (a 128-byte CUtensorMap passed by value, encoded with
  cuTensorMapEncodeTiled from the bound buffer's address and re-encoded when it changes).

:class:`AotFunction` loads the PTX into torch's CUDA context (the device's primary
context, the one the CUDA runtime and therefore torch use) through cuda-python's driver
API, takes its workspaces from torch's caching allocator, binds ``x``/``proj``/``out`` to
torch tensors (their ``data_ptr()``) and enqueues the steps on
``torch.cuda.current_stream()``, so it orders with torch work, can be captured in a
``torch.cuda.CUDAGraph`` and is timed by ``triton.testing.do_bench`` like any torch op.
Calls are asynchronous (no synchronization inside).

Everything that does not touch the GPU (manifest parsing and checking, the ctypes
packing of kernel arguments, the step loop against a driver object) is plain Python and
tested on the CPU with a fake driver (``python/tests/test_aot.py``).

Command line (GPU): ``python -m sigreg.aot ARTIFACT_DIR [--seed N] [--input-seed N]``
runs the artifact once on fresh random inputs and checks it against the float64
reference (``sigreg.reference``); exit status 1 on a mismatch.
"""

from __future__ import annotations

import ctypes
import json
import os
import struct
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

__all__ = [
    "FORMAT",
    "ManifestError",
    "CudaError",
    "Problem",
    "BufferDesc",
    "ScalarDesc",
    "KernelArg",
    "Step",
    "Manifest",
    "parse_manifest",
    "load_manifest",
    "LaunchArgs",
    "Program",
    "CudaDriver",
    "AotFunction",
    "scalar_values_for",
    "DTYPE_BYTES",
    "TensorMapDesc",
    "TENSOR_MAP_BYTES",
]

FORMAT = "sigreg-aot-v1"
DTYPE_BYTES = {"bf16": 2, "f16": 2, "f32": 4}
SCALAR_TYPES = ("i32", "i64", "f32", "f64")
LITERAL_KINDS = ("i32", "i64", "f32", "f64")
ALLOC_ALIGN = 256
TENSOR_MAP_BYTES = 128  # sizeof(CUtensorMap)
TENSOR_MAP_ALIGN = 64
TENSOR_MAP_MAX_RANK = 5
TENSOR_MAP_DTYPE_BYTES = {"bf16": 2, "f16": 2, "f32": 4, "i32": 4}
# Manifest spellings -> cuda.h enum values (CUtensorMapDataType, ...Swizzle,
# ...L2promotion, ...FloatOOBfill, ...Interleave; CUDA 12/13).
TENSOR_MAP_DTYPE = {"i32": 3, "f16": 6, "f32": 7, "bf16": 9}
TENSOR_MAP_SWIZZLE = {"none": 0, "32b": 1, "64b": 2, "128b": 3}
TENSOR_MAP_L2_PROMOTION = {"none": 0, "64b": 1, "128b": 2, "256b": 3}
TENSOR_MAP_OOB_FILL = {"zero": 0, "nan": 1}
TENSOR_MAP_INTERLEAVE = {"none": 0, "16b": 1, "32b": 2}


class ManifestError(ValueError):
    """A manifest that does not follow sigreg-aot-v1; the message names the key path."""


class CudaError(RuntimeError):
    """A CUDA driver call failed; the message names the call and the CUresult."""


# ---------------------------------------------------------------------------
# Manifest
# ---------------------------------------------------------------------------


@dataclass
class Problem:
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
    # The DDP split's entry points (docs/TORCH.md): "ecf" (outputs cos, sin [V, S, P]) or
    # "ecf_backward" (inputs dcos, dsin [V, S, P], output dL/dx [V, N, D]); "" otherwise.
    entry_point: str = ""

    def x_shape(self) -> Tuple[int, ...]:
        return (self.V, self.N, self.D) if self.views else (self.N, self.D)

    def out_shape(self) -> Tuple[int, ...]:
        if self.reduction != "none":
            return ()
        return (self.V, self.S) if self.views else (self.S,)


@dataclass
class BufferDesc:
    name: str
    role: str
    bytes: int
    dtype: Optional[str] = None
    shape: Optional[Tuple[int, ...]] = None
    # Workspace zeroed once at allocation, not per run (self-resetting counters).
    zero_init: bool = False


@dataclass
class ScalarDesc:
    name: str
    type: str


@dataclass
class TensorMapDesc:
    """A tensor_map argument: innermost dimension first, as cuTensorMapEncodeTiled takes it."""
    dtype: str
    dims: Tuple[int, ...]  # elements
    strides: Tuple[int, ...]  # bytes, dims 1..rank-1
    box: Tuple[int, ...]  # elements
    swizzle: str = "none"
    l2_promotion: str = "none"
    oob_fill: str = "zero"
    interleave: str = "none"

    @property
    def rank(self) -> int:
        return len(self.dims)

    def extent_bytes(self) -> int:
        """Bytes from the base to one past the last element addressed."""
        end = self.dims[0] * TENSOR_MAP_DTYPE_BYTES[self.dtype]
        for d, st in enumerate(self.strides):
            end += st * (self.dims[d + 1] - 1)
        return end


@dataclass
class KernelArg:
    kind: str  # buffer | scalar | i32 | i64 | f32 | f64 | tensor_map
    name: Optional[str] = None  # buffer or scalar name (tensor_map: its buffer)
    offset: int = 0  # buffer and tensor_map args
    value: Any = None  # literals
    tensor_map: Optional[TensorMapDesc] = None


@dataclass
class Step:
    op: str  # launch | copy | memset32 | memset8
    region: str = "other"
    # launch
    kernel: Optional[str] = None
    grid: Tuple[int, int, int] = (1, 1, 1)
    block: Tuple[int, int, int] = (1, 1, 1)
    shared_bytes: int = 0
    args: List[KernelArg] = field(default_factory=list)
    # memset32 / memset8
    buffer: Optional[str] = None
    offset: int = 0
    count: int = 0
    value: int = 0
    # copy
    src: Optional[str] = None
    src_offset: int = 0
    dst: Optional[str] = None
    dst_offset: int = 0
    bytes: int = 0

    def describe(self) -> str:
        if self.op == "launch":
            return f"launch {self.kernel} grid={list(self.grid)} block={list(self.block)}"
        if self.op == "copy":
            return f"copy {self.bytes} B {self.src}+{self.src_offset} -> {self.dst}+{self.dst_offset}"
        return f"{self.op} {self.buffer}+{self.offset} x{self.count} = {self.value}"


@dataclass
class Manifest:
    ptx: str
    buffers: List[BufferDesc]
    scalars: List[ScalarDesc]
    steps: List[Step]
    problem: Optional[Problem] = None
    function: str = ""
    pipeline: str = ""
    chip: str = ""
    path: Optional[str] = None  # artifact directory when loaded from disk

    def buffer(self, name: str) -> BufferDesc:
        for b in self.buffers:
            if b.name == name:
                return b
        raise KeyError(name)

    def has_buffer(self, name: str) -> bool:
        return any(b.name == name for b in self.buffers)

    def scalar(self, name: str) -> ScalarDesc:
        for s in self.scalars:
            if s.name == name:
                return s
        raise KeyError(name)

    def has_scalar(self, name: str) -> bool:
        return any(s.name == name for s in self.scalars)

    def buffers_with_role(self, role: str) -> List[BufferDesc]:
        return [b for b in self.buffers if b.role == role]

    def kernels(self) -> List[str]:
        """Distinct kernel names in order of first launch."""
        seen: "OrderedDict[str, None]" = OrderedDict()
        for s in self.steps:
            if s.op == "launch":
                seen[s.kernel] = None
        return list(seen)

    def num_launches(self) -> int:
        return sum(1 for s in self.steps if s.op == "launch")

    def output_name(self) -> str:
        """'out', or the only output buffer (Harness.h)."""
        if self.has_buffer("out"):
            return "out"
        outs = self.buffers_with_role("output")
        if len(outs) != 1:
            raise ManifestError("no buffer 'out' and not exactly one output buffer")
        return outs[0].name

    def regions(self) -> "OrderedDict[str, List[int]]":
        """Region name -> indices of its steps, in order of first appearance."""
        out: "OrderedDict[str, List[int]]" = OrderedDict()
        for i, s in enumerate(self.steps):
            out.setdefault(s.region, []).append(i)
        return out


def _fail(where: str, msg: str):
    raise ManifestError(f"{where}: {msg}")


def _obj(v, where) -> dict:
    if not isinstance(v, dict):
        _fail(where, f"expected an object, got {type(v).__name__}")
    return v


def _check_keys(o: dict, allowed: Sequence[str], where: str):
    for k in o:
        if k not in allowed:
            _fail(where, f"unknown key '{k}'")


def _req(o: dict, key: str, where: str):
    if key not in o:
        _fail(where, f"missing key '{key}'")
    return o[key]


def _int(v, where, minimum: Optional[int] = None) -> int:
    if isinstance(v, bool):
        _fail(where, "expected an integer, got a boolean")
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    if not isinstance(v, int):
        _fail(where, f"expected an integer, got {v!r}")
    if minimum is not None and v < minimum:
        _fail(where, f"must be >= {minimum}, got {v}")
    return v


def _num(v, where) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        _fail(where, f"expected a number, got {v!r}")
    return float(v)


def _str(v, where) -> str:
    if not isinstance(v, str):
        _fail(where, f"expected a string, got {v!r}")
    return v


def _dim3(v, where) -> Tuple[int, int, int]:
    if not isinstance(v, list) or len(v) != 3:
        _fail(where, "expected an array of 3 integers")
    return tuple(_int(e, f"{where}[{i}]", 1) for i, e in enumerate(v))  # type: ignore[return-value]


def _parse_problem(o, where) -> Problem:
    o = _obj(o, where)
    _check_keys(o, ("V", "N", "D", "S", "P", "t_max", "clip", "clip_value", "reduction", "dtype",
                    "projection", "views", "gradient", "entry_point"), where)
    p = Problem(
        N=_int(_req(o, "N", where), f"{where}.N", 1),
        D=_int(_req(o, "D", where), f"{where}.D", 1),
        S=_int(_req(o, "S", where), f"{where}.S", 1),
        dtype=_str(_req(o, "dtype", where), f"{where}.dtype"),
    )
    if p.dtype not in DTYPE_BYTES:
        _fail(f"{where}.dtype", f"must be one of {sorted(DTYPE_BYTES)}, got '{p.dtype}'")
    if "V" in o:
        p.V = _int(o["V"], f"{where}.V", 1)
    if "P" in o:
        p.P = _int(o["P"], f"{where}.P", 1)
    if "t_max" in o:
        p.t_max = _num(o["t_max"], f"{where}.t_max")
    if "clip" in o:
        p.clip = _str(o["clip"], f"{where}.clip")
        if p.clip not in ("none", "zero_below", "clamp_min"):
            _fail(f"{where}.clip", f"unknown clip '{p.clip}'")
    if "clip_value" in o:
        p.clip_value = _num(o["clip_value"], f"{where}.clip_value")
    if "reduction" in o:
        p.reduction = _str(o["reduction"], f"{where}.reduction")
        if p.reduction not in ("mean", "sum", "none"):
            _fail(f"{where}.reduction", f"unknown reduction '{p.reduction}'")
    if "projection" in o:
        p.projection = _str(o["projection"], f"{where}.projection")
        if p.projection not in ("seed", "explicit"):
            _fail(f"{where}.projection", f"unknown projection '{p.projection}'")
    if "views" in o:
        if not isinstance(o["views"], bool):
            _fail(f"{where}.views", "expected a boolean")
        p.views = o["views"]
    if "gradient" in o:
        if not isinstance(o["gradient"], bool):
            _fail(f"{where}.gradient", "expected a boolean")
        p.gradient = o["gradient"]
    if "entry_point" in o:
        p.entry_point = _str(o["entry_point"], f"{where}.entry_point")
        if p.entry_point not in ("ecf", "ecf_backward"):
            _fail(f"{where}.entry_point", f"unknown entry point '{p.entry_point}'")
    return p


def _int_list(o: dict, key: str, where: str, lo: int, hi: int) -> Tuple[int, ...]:
    v = _req(o, key, where)
    w = f"{where}.{key}"
    if not isinstance(v, list):
        _fail(w, "expected an array")
    out = []
    for i, e in enumerate(v):
        x = _int(e, f"{w}[{i}]")
        if not lo <= x <= hi:
            _fail(f"{w}[{i}]", f"value {x} out of range [{lo}, {hi}]")
        out.append(x)
    return tuple(out)


def _choice(o: dict, key: str, where: str, choices: Mapping[str, int], default: str) -> str:
    if key not in o:
        return default
    v = _str(o[key], f"{where}.{key}")
    if v not in choices:
        _fail(f"{where}.{key}", f"invalid value '{v}' (expected one of {', '.join(choices)})")
    return v


def _parse_tensor_map(o, where, buffers: Dict[str, BufferDesc]) -> KernelArg:
    """Mirrors parseTensorMap + validate() of lib/Runtime/Manifest.cpp (same key paths)."""
    o = _obj(o, where)
    _check_keys(o, ("buffer", "offset", "dtype", "dims", "strides", "box", "swizzle", "l2_promotion",
                    "oob_fill", "interleave"), where)
    name = _str(_req(o, "buffer", where), f"{where}.buffer")
    offset = _int(o.get("offset", 0), f"{where}.offset", 0)
    dtype = _str(_req(o, "dtype", where), f"{where}.dtype")
    if dtype not in TENSOR_MAP_DTYPE:
        _fail(f"{where}.dtype", f"invalid value '{dtype}' (expected one of {', '.join(TENSOR_MAP_DTYPE)})")
    t = TensorMapDesc(
        dtype=dtype,
        dims=_int_list(o, "dims", where, 1, 2 ** 32),
        strides=_int_list(o, "strides", where, 1, 2 ** 40 - 1),
        box=_int_list(o, "box", where, 1, 256),
        swizzle=_choice(o, "swizzle", where, TENSOR_MAP_SWIZZLE, "none"),
        l2_promotion=_choice(o, "l2_promotion", where, TENSOR_MAP_L2_PROMOTION, "none"),
        oob_fill=_choice(o, "oob_fill", where, TENSOR_MAP_OOB_FILL, "zero"),
        interleave=_choice(o, "interleave", where, TENSOR_MAP_INTERLEAVE, "none"),
    )
    rank = t.rank
    if not 1 <= rank <= TENSOR_MAP_MAX_RANK:
        _fail(f"{where}.dims", f"rank {rank} out of range [1, {TENSOR_MAP_MAX_RANK}]")
    if len(t.strides) != rank - 1:
        _fail(f"{where}.strides", f"expected {rank - 1} strides (dims 1..{rank - 1}), got {len(t.strides)}")
    if len(t.box) != rank:
        _fail(f"{where}.box", f"expected {rank} box sizes (one per dim), got {len(t.box)}")
    elem = TENSOR_MAP_DTYPE_BYTES[dtype]
    interleaved = t.interleave != "none"
    align = 32 if t.interleave == "32b" else 16
    covered = t.dims[0] * elem
    for i, st in enumerate(t.strides):
        if st % align:
            _fail(f"{where}.strides[{i}]", f"stride {st} is not a multiple of {align} bytes")
        if st < covered:
            _fail(f"{where}.strides[{i}]", f"stride {st} is smaller than the {covered} bytes of the dimensions "
                                           "inside it")
        covered = st * t.dims[i + 1]
    inner = t.box[0] * elem
    if not interleaved and inner % 16:
        _fail(f"{where}.box[0]", f"inner box of {inner} bytes is not a multiple of 16")
    if not interleaved and t.swizzle != "none":
        span = {"32b": 32, "64b": 64, "128b": 128}[t.swizzle]
        if inner > span:
            _fail(f"{where}.box[0]", f"inner box of {inner} bytes exceeds the {span}-byte swizzle span")
    if interleaved and rank < 3:
        _fail(f"{where}.interleave", "interleaved layouts need rank >= 3")
    if t.interleave == "32b" and t.swizzle != "32b":
        _fail(f"{where}.swizzle", "32b interleave requires 32b swizzle")
    if t.oob_fill == "nan" and dtype == "i32":
        _fail(f"{where}.oob_fill", "nan fill needs a floating-point dtype")
    if name not in buffers:
        _fail(f"{where}.buffer", f"unknown buffer '{name}'")
    if offset % align:
        _fail(f"{where}.offset", f"offset {offset} is not a multiple of {align} (the tensor's base address must be)")
    end = t.extent_bytes()
    size = buffers[name].bytes
    if offset > size or end > size - offset:
        _fail(f"{where}.dims", f"the tensor ({end} bytes from offset {offset}) exceeds buffer '{name}' of {size} "
                               "bytes")
    return KernelArg("tensor_map", name=name, offset=offset, tensor_map=t)


def _parse_arg(o, where, buffers: Dict[str, BufferDesc], scalars: Dict[str, ScalarDesc]) -> KernelArg:
    o = _obj(o, where)
    if "tensor_map" in o:
        if len(o) != 1:
            _fail(where, "expected exactly one of buffer, scalar, i32, i64, f32, f64, tensor_map")
        return _parse_tensor_map(o["tensor_map"], f"{where}.tensor_map", buffers)
    if "buffer" in o:
        _check_keys(o, ("buffer", "offset"), where)
        name = _str(o["buffer"], f"{where}.buffer")
        if name not in buffers:
            _fail(where, f"unknown buffer '{name}'")
        off = _int(o.get("offset", 0), f"{where}.offset", 0)
        if off > buffers[name].bytes:
            _fail(where, f"offset {off} past the end of buffer '{name}' ({buffers[name].bytes} bytes)")
        return KernelArg("buffer", name=name, offset=off)
    if "scalar" in o:
        _check_keys(o, ("scalar",), where)
        name = _str(o["scalar"], f"{where}.scalar")
        if name not in scalars:
            _fail(where, f"unknown scalar '{name}'")
        return KernelArg("scalar", name=name)
    kinds = [k for k in LITERAL_KINDS if k in o]
    if len(kinds) != 1 or len(o) != 1:
        _fail(where, "expected exactly one of buffer, scalar, i32, i64, f32, f64, tensor_map")
    kind = kinds[0]
    v = o[kind]
    if kind in ("i32", "i64"):
        v = _int(v, f"{where}.{kind}")
        lo, hi = (-(2 ** 31), 2 ** 32 - 1) if kind == "i32" else (-(2 ** 63), 2 ** 64 - 1)
        if not lo <= v <= hi:
            _fail(f"{where}.{kind}", f"{v} does not fit {kind}")
    else:
        v = _num(v, f"{where}.{kind}")
    return KernelArg(kind, value=v)


def _check_range(where, buffers, name, offset, nbytes):
    if name not in buffers:
        _fail(where, f"unknown buffer '{name}'")
    if offset + nbytes > buffers[name].bytes:
        _fail(where, f"{offset}+{nbytes} bytes past the end of buffer '{name}' ({buffers[name].bytes} bytes)")


def _parse_step(o, where, buffers, scalars) -> Step:
    o = _obj(o, where)
    op = _str(_req(o, "op", where), f"{where}.op")
    region = _str(o.get("region", "other"), f"{where}.region")
    if op == "launch":
        _check_keys(o, ("op", "region", "kernel", "grid", "block", "shared_bytes", "args"), where)
        args_json = o.get("args", [])
        if not isinstance(args_json, list):
            _fail(f"{where}.args", "expected an array")
        return Step(
            op=op, region=region,
            kernel=_str(_req(o, "kernel", where), f"{where}.kernel"),
            grid=_dim3(_req(o, "grid", where), f"{where}.grid"),
            block=_dim3(_req(o, "block", where), f"{where}.block"),
            shared_bytes=_int(o.get("shared_bytes", 0), f"{where}.shared_bytes", 0),
            args=[_parse_arg(a, f"{where}.args[{i}]", buffers, scalars) for i, a in enumerate(args_json)],
        )
    if op in ("memset32", "memset8"):
        _check_keys(o, ("op", "region", "buffer", "offset", "count", "value"), where)
        name = _str(_req(o, "buffer", where), f"{where}.buffer")
        off = _int(o.get("offset", 0), f"{where}.offset", 0)
        count = _int(_req(o, "count", where), f"{where}.count", 0)
        value = _int(_req(o, "value", where), f"{where}.value")
        if op == "memset32":
            if off % 4:
                _fail(f"{where}.offset", "memset32 offset must be a multiple of 4")
            if not -(2 ** 31) <= value <= 2 ** 32 - 1:
                _fail(f"{where}.value", f"{value} does not fit 32 bits")
            _check_range(where, buffers, name, off, 4 * count)
        else:
            if not 0 <= value <= 255:
                _fail(f"{where}.value", f"{value} is not a byte (0..255)")
            _check_range(where, buffers, name, off, count)
        return Step(op=op, region=region, buffer=name, offset=off, count=count, value=value)
    if op == "copy":
        _check_keys(o, ("op", "region", "src", "src_offset", "dst", "dst_offset", "bytes"), where)
        st = Step(op=op, region=region,
                  src=_str(_req(o, "src", where), f"{where}.src"),
                  src_offset=_int(o.get("src_offset", 0), f"{where}.src_offset", 0),
                  dst=_str(_req(o, "dst", where), f"{where}.dst"),
                  dst_offset=_int(o.get("dst_offset", 0), f"{where}.dst_offset", 0),
                  bytes=_int(_req(o, "bytes", where), f"{where}.bytes", 0))
        _check_range(where, buffers, st.src, st.src_offset, st.bytes)
        _check_range(where, buffers, st.dst, st.dst_offset, st.bytes)
        return st
    _fail(f"{where}.op", f"unknown op '{op}'")
    raise AssertionError  # unreachable


def parse_manifest(obj: Mapping[str, Any], path: Optional[str] = None) -> Manifest:
    """Checks and converts a decoded manifest.json object (unknown keys rejected below top level)."""
    top = _obj(obj, "manifest")
    fmt = top.get("format")
    if fmt != FORMAT:
        _fail("format", f"expected '{FORMAT}', got {fmt!r}")
    ptx = _str(_req(top, "ptx", "manifest"), "ptx")
    bufs_json = _req(top, "buffers", "manifest")
    if not isinstance(bufs_json, list):
        _fail("buffers", "expected an array")
    buffers: Dict[str, BufferDesc] = OrderedDict()
    for i, b in enumerate(bufs_json):
        w = f"buffers[{i}]"
        b = _obj(b, w)
        _check_keys(b, ("name", "role", "bytes", "dtype", "shape", "zero_init"), w)
        name = _str(_req(b, "name", w), f"{w}.name")
        if name in buffers:
            _fail(w, f"duplicate buffer '{name}'")
        role = _str(_req(b, "role", w), f"{w}.role")
        if role not in ("input", "output", "workspace"):
            _fail(f"{w}.role", f"unknown role '{role}'")
        shape = b.get("shape")
        if shape is not None:
            if not isinstance(shape, list):
                _fail(f"{w}.shape", "expected an array")
            shape = tuple(_int(e, f"{w}.shape[{j}]", 0) for j, e in enumerate(shape))
        dtype = b.get("dtype")
        if dtype is not None:
            dtype = _str(dtype, f"{w}.dtype")
        zero_init = b.get("zero_init", False)
        if not isinstance(zero_init, bool):
            _fail(f"{w}.zero_init", "expected a bool")
        if zero_init and role != "workspace":
            _fail(f"{w}.zero_init", "only a workspace may be zero_init")
        buffers[name] = BufferDesc(name, role, _int(_req(b, "bytes", w), f"{w}.bytes", 0), dtype, shape, zero_init)
    scal_json = top.get("scalars", [])
    if not isinstance(scal_json, list):
        _fail("scalars", "expected an array")
    scalars: Dict[str, ScalarDesc] = OrderedDict()
    for i, s in enumerate(scal_json):
        w = f"scalars[{i}]"
        s = _obj(s, w)
        _check_keys(s, ("name", "type"), w)
        name = _str(_req(s, "name", w), f"{w}.name")
        if name in scalars:
            _fail(w, f"duplicate scalar '{name}'")
        typ = _str(_req(s, "type", w), f"{w}.type")
        if typ not in SCALAR_TYPES:
            _fail(f"{w}.type", f"unknown type '{typ}'")
        scalars[name] = ScalarDesc(name, typ)
    steps_json = _req(top, "steps", "manifest")
    if not isinstance(steps_json, list):
        _fail("steps", "expected an array")
    steps = [_parse_step(s, f"steps[{i}]", buffers, scalars) for i, s in enumerate(steps_json)]
    problem = _parse_problem(top["problem"], "problem") if "problem" in top else None
    m = Manifest(ptx=ptx, buffers=list(buffers.values()), scalars=list(scalars.values()), steps=steps,
                 problem=problem, function=str(top.get("function", "")), pipeline=str(top.get("pipeline", "")),
                 chip=str(top.get("chip", "")), path=path)
    return m


def load_manifest(path: str) -> Manifest:
    """Reads ``path`` (an artifact directory or its manifest.json)."""
    if os.path.isdir(path):
        directory, file = path, os.path.join(path, "manifest.json")
    else:
        directory, file = os.path.dirname(os.path.abspath(path)), path
    with open(file, "r", encoding="utf-8") as f:
        try:
            obj = json.load(f)
        except json.JSONDecodeError as e:
            raise ManifestError(f"{file}: JSON syntax error at line {e.lineno}, column {e.colno}: {e.msg}") from None
    try:
        return parse_manifest(obj, path=directory)
    except ManifestError as e:
        raise ManifestError(f"{file}: {e}") from None


def check_problem_buffers(m: Manifest) -> None:
    """The Harness.h conventions: a problem, input 'x', 'proj' when explicit, one f32 output."""
    if m.problem is None:
        raise ManifestError("the manifest has no 'problem'")
    p = m.problem
    if not m.has_buffer("x") or m.buffer("x").role != "input":
        raise ManifestError("no input buffer 'x'")
    xb = m.buffer("x")
    need = DTYPE_BYTES[p.dtype]
    for d in p.x_shape():
        need *= d
    if xb.bytes != need:
        raise ManifestError(f"buffer 'x' has {xb.bytes} bytes, the problem needs {need}")
    if p.projection == "explicit":
        if not m.has_buffer("proj") or m.buffer("proj").role != "input":
            raise ManifestError("explicit projection but no input buffer 'proj'")
        if m.buffer("proj").bytes != p.D * p.S * DTYPE_BYTES[p.dtype]:
            raise ManifestError("buffer 'proj' is not [D, S] in the problem dtype")
    for b in m.buffers_with_role("input"):
        if b.name not in ("x", "proj"):
            raise ManifestError(f"unexpected input buffer '{b.name}' (only 'x' and 'proj' are bound)")
    out = m.buffer(m.output_name())
    count = 1
    for d in p.out_shape():
        count *= d
    if out.bytes != 4 * count:
        raise ManifestError(f"output '{out.name}' has {out.bytes} bytes, expected {4 * count} (f32)")
    for s in m.scalars:
        if s.name == "seed":
            if s.type not in ("i32", "i64"):
                raise ManifestError("scalar 'seed' must be i32 or i64")
        elif s.name in ("V", "N", "D", "S", "P"):
            if s.type not in ("i32", "i64"):
                raise ManifestError(f"scalar '{s.name}' must be an integer")
        else:
            raise ManifestError(f"unknown scalar '{s.name}' (Harness.h sets only seed, V, N, D, S, P)")


def scalar_values_for(m: Manifest, seed: Optional[int]) -> Dict[str, int]:
    """Values of the manifest's scalars as bindProblem sets them (lib/Runtime/HarnessInputs.cpp)."""
    p = m.problem
    vals: Dict[str, int] = {}
    for s in m.scalars:
        if s.name == "seed":
            if seed is None:
                raise ValueError("this artifact generates its projection from a seed: pass seed=")
            v = int(seed)
            vals["seed"] = v & 0xFFFFFFFF if s.type == "i32" else v
        else:
            vals[s.name] = int(getattr(p, s.name))
    return vals


# ---------------------------------------------------------------------------
# Kernel argument packing (ctypes) and the step loop
# ---------------------------------------------------------------------------

_CTYPE = {
    "ptr": ctypes.c_uint64,
    "i32": ctypes.c_int32,
    "i64": ctypes.c_int64,
    "f32": ctypes.c_float,
    "f64": ctypes.c_double,
}


def _wrap_signed(v: int, bits: int) -> int:
    """Two's complement reinterpretation of v modulo 2^bits (e.g. a u32 seed as i32)."""
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


class TensorMapSlot:
    """128 bytes aligned to 64 holding one encoded CUtensorMap, and the address it describes."""

    def __init__(self):
        self._raw = ctypes.create_string_buffer(TENSOR_MAP_BYTES + TENSOR_MAP_ALIGN)
        base = ctypes.addressof(self._raw)
        self.address = (base + TENSOR_MAP_ALIGN - 1) // TENSOR_MAP_ALIGN * TENSOR_MAP_ALIGN
        self.encoded_for: Optional[int] = None
        self.encodes = 0  # how many times it was (re-)encoded

    def store(self, data: bytes) -> None:
        if len(data) != TENSOR_MAP_BYTES:
            raise CudaError(f"a CUtensorMap has {TENSOR_MAP_BYTES} bytes, the encoder returned {len(data)}")
        ctypes.memmove(self.address, data, TENSOR_MAP_BYTES)

    def raw(self) -> bytes:
        return ctypes.string_at(self.address, TENSOR_MAP_BYTES)


class LaunchArgs:
    """The kernelParams of one launch step: one ctypes slot per argument, and the
    ``void*[]`` array of their addresses that cuLaunchKernel reads (it copies the
    values at the call, so the slots are reused run after run, also under graph capture).

    Slot types: pointers (buffer + offset) c_uint64; i32 c_int32; i64 c_int64; f32
    c_float; f64 c_double; a scalar argument takes its declared type; a tensor_map a
    :class:`TensorMapSlot` (128 bytes aligned to 64, copied by value by the launch),
    encoded through ``encoder(desc, address) -> bytes`` only when the address differs
    from the one it was last encoded for.
    """

    def __init__(self, step: Step, scalar_types: Mapping[str, str]):
        self.step = step
        self.kinds: List[str] = []
        self.slots: List[Any] = []
        addresses = []
        for a in step.args:
            if a.kind == "buffer":
                kind = "ptr"
            elif a.kind == "scalar":
                kind = scalar_types[a.name]
            else:
                kind = a.kind
            self.kinds.append(kind)
            if kind == "tensor_map":
                slot = TensorMapSlot()
                addresses.append(slot.address)
            else:
                slot = _CTYPE[kind]()
                addresses.append(ctypes.addressof(slot))
            if a.kind in LITERAL_KINDS:
                self._store(slot, kind, a.value)
            self.slots.append(slot)
        n = len(self.slots)
        self.params = (ctypes.c_void_p * max(n, 1))(*addresses)

    @staticmethod
    def _store(slot, kind: str, value):
        if kind == "ptr":
            slot.value = int(value) & 0xFFFFFFFFFFFFFFFF
        elif kind == "i32":
            slot.value = _wrap_signed(int(value), 32)
        elif kind == "i64":
            slot.value = _wrap_signed(int(value), 64)
        else:
            slot.value = float(value)

    def update(self, buffer_ptrs: Mapping[str, int], scalar_values: Mapping[str, Any], encoder=None) -> None:
        """Writes the current buffer addresses (+ offsets) and scalar values into the slots,
        and re-encodes each tensor map whose address changed (``encoder(desc, address)``)."""
        for i, (a, kind, slot) in enumerate(zip(self.step.args, self.kinds, self.slots)):
            if a.kind == "buffer":
                self._store(slot, "ptr", int(buffer_ptrs[a.name]) + a.offset)
            elif a.kind == "scalar":
                self._store(slot, kind, scalar_values[a.name])
            elif a.kind == "tensor_map":
                address = int(buffer_ptrs[a.name]) + a.offset
                if slot.encoded_for == address:
                    continue
                where = f"argument {i} (tensor map of buffer '{a.name}')"
                if encoder is None:
                    raise CudaError(f"{where}: the driver cannot encode tensor maps (no encode_tensor_map)")
                slot.encoded_for = None
                try:
                    slot.store(encoder(a.tensor_map, address))
                except CudaError as e:
                    raise CudaError(f"{where}: {e}") from None
                slot.encoded_for = address
                slot.encodes += 1

    @property
    def address(self) -> int:
        """Address of the void* array (0 for a kernel without arguments)."""
        return ctypes.addressof(self.params) if self.slots else 0

    def raw_bytes(self) -> List[bytes]:
        """The bytes of each slot (what the kernel receives), for tests and debugging."""
        return [s.raw() if isinstance(s, TensorMapSlot) else ctypes.string_at(ctypes.addressof(s), ctypes.sizeof(s))
                for s in self.slots]


class Program:
    """The step list of a manifest, bound to loaded kernel handles, run against a driver.

    ``driver`` needs: ``launch(func, grid, block, shared_bytes, stream, params_address)``,
    ``memcpy_dtod(dst, src, nbytes, stream)``, ``memset_d32(ptr, value, count, stream)``
    and ``memset_d8(ptr, value, count, stream)`` (all asynchronous on ``stream``), and
    for manifests with tensor_map arguments ``encode_tensor_map(desc, address) -> bytes``
    (host only, so also fine while torch captures a CUDA graph; a captured graph keeps
    the tensor maps of its capture, like it keeps the pointers).
    """

    def __init__(self, manifest: Manifest, functions: Mapping[str, Any]):
        self.manifest = manifest
        scalar_types = {s.name: s.type for s in manifest.scalars}
        self.functions = dict(functions)
        self.launch_args: List[Optional[LaunchArgs]] = []
        for s in manifest.steps:
            if s.op == "launch":
                if s.kernel not in self.functions:
                    raise ManifestError(f"kernel '{s.kernel}' was not loaded")
                self.launch_args.append(LaunchArgs(s, scalar_types))
            else:
                self.launch_args.append(None)

    def enqueue(self, driver, stream, buffer_ptrs: Mapping[str, int], scalar_values: Mapping[str, Any]) -> None:
        for i, (s, la) in enumerate(zip(self.manifest.steps, self.launch_args)):
            try:
                if s.op == "launch":
                    la.update(buffer_ptrs, scalar_values, getattr(driver, "encode_tensor_map", None))
                    driver.launch(self.functions[s.kernel], s.grid, s.block, s.shared_bytes, stream, la.address)
                elif s.op == "copy":
                    driver.memcpy_dtod(int(buffer_ptrs[s.dst]) + s.dst_offset, int(buffer_ptrs[s.src]) + s.src_offset,
                                       s.bytes, stream)
                elif s.op == "memset32":
                    driver.memset_d32(int(buffer_ptrs[s.buffer]) + s.offset, s.value & 0xFFFFFFFF, s.count, stream)
                elif s.op == "memset8":
                    driver.memset_d8(int(buffer_ptrs[s.buffer]) + s.offset, s.value & 0xFF, s.count, stream)
                else:  # parse_manifest rejects other ops
                    raise ManifestError(f"unknown op '{s.op}'")
            except CudaError as e:
                raise CudaError(f"step {i} ({s.describe()}): {e}") from None


# ---------------------------------------------------------------------------
# cuda-python driver wrapper (imported lazily)
# ---------------------------------------------------------------------------


def _import_driver():
    try:
        from cuda.bindings import driver as cu  # cuda-python >= 12.6 / cuda.bindings 13.x
        return cu
    except ImportError:
        pass
    try:
        from cuda import cuda as cu  # older cuda-python
        return cu
    except ImportError as e:
        raise ImportError("sigreg.aot needs cuda-python (pip install cuda-python): "
                          "neither cuda.bindings.driver nor cuda.cuda imports") from e


class CudaDriver:
    """The few driver calls the runtime needs, each checked (CudaError names the CUresult)."""

    def __init__(self, cu=None):
        self.cu = cu if cu is not None else _import_driver()
        self._check(self.cu.cuInit(0), "cuInit")

    def _err_name(self, err) -> str:
        try:
            r = self.cu.cuGetErrorName(err)
            name = r[1] if isinstance(r, tuple) else r
            if isinstance(name, bytes):
                name = name.decode(errors="replace")
            if name:
                return str(name)
        except Exception:  # noqa: BLE001 (best effort)
            pass
        return getattr(err, "name", None) or f"CUresult {int(err)}"

    def _check(self, result, what: str):
        """cuda-python returns (err,) or (err, value...); raise unless CUDA_SUCCESS."""
        if isinstance(result, tuple):
            err, rest = result[0], result[1:]
        else:
            err, rest = result, ()
        if int(err) != 0:
            raise CudaError(f"{what} failed: {self._err_name(err)} ({int(err)})")
        if not rest:
            return None
        return rest[0] if len(rest) == 1 else rest

    @staticmethod
    def handle_value(h) -> int:
        """Integer value of a cuda-python handle (CUcontext, CUstream, ...) or an int."""
        if h is None:
            return 0
        try:
            return int(h)
        except TypeError:
            return 1  # unknown handle type: treat as non-null

    # -- context ------------------------------------------------------------
    def ensure_context(self, device_index: int):
        """Makes the device's primary context (the CUDA runtime's, hence torch's) current."""
        dev = self._check(self.cu.cuDeviceGet(int(device_index)), "cuDeviceGet")
        primary = self._check(self.cu.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
        current = self._check(self.cu.cuCtxGetCurrent(), "cuCtxGetCurrent")
        if self.handle_value(current) != self.handle_value(primary):
            self._check(self.cu.cuCtxSetCurrent(primary), "cuCtxSetCurrent")
        return primary

    # -- modules ------------------------------------------------------------
    def load_module(self, ptx: bytes):
        """cuModuleLoadData of NUL-terminated PTX; on failure the JIT log is in the error."""
        image = ctypes.create_string_buffer(ptx)  # adds the terminating NUL
        err_res = self.cu.cuModuleLoadData(ctypes.addressof(image))
        err = err_res[0] if isinstance(err_res, tuple) else err_res
        if int(err) == 0:
            return err_res[1]
        log = _jit_error_log(ptx)
        raise CudaError(f"cuModuleLoadData failed: {self._err_name(err)} ({int(err)})"
                        + (f"\nJIT log:\n{log}" if log else ""))

    def get_function(self, module, name: str):
        return self._check(self.cu.cuModuleGetFunction(module, name.encode()), f"cuModuleGetFunction('{name}')")

    def set_max_dynamic_shared(self, func, nbytes: int, name: str = ""):
        attr = self.cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        self._check(self.cu.cuFuncSetAttribute(func, attr, int(nbytes)), f"cuFuncSetAttribute('{name}')")

    def max_shared_optin(self, device_index: int) -> int:
        attr = self.cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
        dev = self._check(self.cu.cuDeviceGet(int(device_index)), "cuDeviceGet")
        return int(self._check(self.cu.cuDeviceGetAttribute(attr, dev), "cuDeviceGetAttribute"))

    def unload_module(self, module):
        self._check(self.cu.cuModuleUnload(module), "cuModuleUnload")

    # -- the step operations ------------------------------------------------
    def _stream(self, stream):
        if isinstance(stream, self.cu.CUstream):
            return stream
        cache = self.__dict__.setdefault("_streams", {})
        h = cache.get(int(stream))
        if h is None:
            h = cache[int(stream)] = self.cu.CUstream(int(stream))
        return h

    def launch(self, func, grid, block, shared_bytes, stream, params_address):
        self._check(self.cu.cuLaunchKernel(func, int(grid[0]), int(grid[1]), int(grid[2]),
                                           int(block[0]), int(block[1]), int(block[2]),
                                           int(shared_bytes), self._stream(stream),
                                           int(params_address) if params_address else 0, 0),
                    "cuLaunchKernel")

    def encode_tensor_map(self, desc: TensorMapDesc, address: int) -> bytes:
        """cuTensorMapEncodeTiled of ``desc`` at ``address``: the 128 bytes of the CUtensorMap."""
        cu = self.cu
        fn = getattr(cu, "cuTensorMapEncodeTiled", None)
        if fn is None:
            raise CudaError("this cuda-python has no cuTensorMapEncodeTiled (CUDA 12 or later needed)")

        def enum(type_name, value):
            t = getattr(cu, type_name, None)
            return t(value) if t is not None else value

        u64 = getattr(cu, "cuuint64_t", int)
        u32 = getattr(cu, "cuuint32_t", int)
        tmap = self._check(fn(enum("CUtensorMapDataType", TENSOR_MAP_DTYPE[desc.dtype]), desc.rank,
                              int(address), [u64(int(d)) for d in desc.dims],
                              [u64(int(st)) for st in desc.strides], [u32(int(b)) for b in desc.box],
                              [u32(1)] * desc.rank,
                              enum("CUtensorMapInterleave", TENSOR_MAP_INTERLEAVE[desc.interleave]),
                              enum("CUtensorMapSwizzle", TENSOR_MAP_SWIZZLE[desc.swizzle]),
                              enum("CUtensorMapL2promotion", TENSOR_MAP_L2_PROMOTION[desc.l2_promotion]),
                              enum("CUtensorMapFloatOOBfill", TENSOR_MAP_OOB_FILL[desc.oob_fill])),
                           "cuTensorMapEncodeTiled")
        return _tensor_map_bytes(tmap)

    def memcpy_dtod(self, dst: int, src: int, nbytes: int, stream):
        self._check(self.cu.cuMemcpyDtoDAsync(self.cu.CUdeviceptr(int(dst)), self.cu.CUdeviceptr(int(src)),
                                              int(nbytes), self._stream(stream)), "cuMemcpyDtoDAsync")

    def memset_d32(self, ptr: int, value: int, count: int, stream):
        self._check(self.cu.cuMemsetD32Async(self.cu.CUdeviceptr(int(ptr)), int(value) & 0xFFFFFFFF, int(count),
                                             self._stream(stream)), "cuMemsetD32Async")

    def memset_d8(self, ptr: int, value: int, count: int, stream):
        self._check(self.cu.cuMemsetD8Async(self.cu.CUdeviceptr(int(ptr)), int(value) & 0xFF, int(count),
                                            self._stream(stream)), "cuMemsetD8Async")


def _tensor_map_bytes(tmap) -> bytes:
    """The 128 bytes of a cuda-python CUtensorMap (its ``opaque`` words, else its struct)."""
    if isinstance(tmap, (bytes, bytearray)):
        data = bytes(tmap)
    else:
        opaque = getattr(tmap, "opaque", None)
        if opaque is not None:
            words = [int(w) for w in opaque]
            data = struct.pack(f"<{len(words)}Q", *words)
        else:
            data = ctypes.string_at(int(tmap.getPtr()), TENSOR_MAP_BYTES)
    if len(data) != TENSOR_MAP_BYTES:
        raise CudaError(f"CUtensorMap of {len(data)} bytes (expected {TENSOR_MAP_BYTES})")
    return data


def _jit_error_log(ptx: bytes) -> str:
    """Best effort: the JIT error log of ``ptx`` (libcuda through ctypes, else ptxas)."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        module = ctypes.c_void_p()
        size = 1 << 16
        err_buf = ctypes.create_string_buffer(size)
        info_buf = ctypes.create_string_buffer(size)
        # CU_JIT_INFO_LOG_BUFFER=3, _SIZE_BYTES=4, CU_JIT_ERROR_LOG_BUFFER=5, _SIZE_BYTES=6
        opts = (ctypes.c_int * 4)(3, 4, 5, 6)
        vals = (ctypes.c_void_p * 4)(ctypes.addressof(info_buf), size, ctypes.addressof(err_buf), size)
        image = ctypes.create_string_buffer(ptx)
        rc = lib.cuModuleLoadDataEx(ctypes.byref(module), image, 4, opts, vals)
        if rc == 0 and module.value:
            lib.cuModuleUnload(module)
        text = (err_buf.value.decode(errors="replace") + "\n" + info_buf.value.decode(errors="replace")).strip()
        if text:
            return text
    except Exception:  # noqa: BLE001
        pass
    try:
        import shutil
        import subprocess
        import tempfile

        ptxas = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if os.path.exists("/usr/local/cuda/bin/ptxas")
                                          else None)
        if ptxas:
            with tempfile.NamedTemporaryFile(suffix=".ptx", delete=False) as f:
                f.write(ptx)
                name = f.name
            try:
                r = subprocess.run([ptxas, "-arch=sm_90", name, "-o", os.devnull], capture_output=True, text=True,
                                   timeout=120)
                return ("ptxas: " + (r.stdout + r.stderr).strip()) if (r.stdout + r.stderr).strip() else ""
            finally:
                os.unlink(name)
    except Exception:  # noqa: BLE001
        pass
    return ""


# ---------------------------------------------------------------------------
# AotFunction
# ---------------------------------------------------------------------------

_DEFAULT_SHARED_LIMIT = 48 * 1024


def _torch_dtype(torch, name: str):
    return {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[name]


class AotFunction:
    """A compiled SIGReg artifact callable on torch tensors.

    ``f = AotFunction("gpu-artifacts/blog-bf16/fused")`` loads the PTX into torch's
    context on ``device`` (default: torch's current device) and allocates the workspaces
    once. ``f(x, seed=7)`` enqueues the steps on torch's current stream and returns the
    output tensor (f32; a 0-d tensor for mean/sum). ``x`` must be a contiguous CUDA
    tensor of the manifest's dtype and shape (any shape with the same number of
    elements is accepted and viewed); ``proj`` ``[D, S]`` for explicit projections;
    ``out`` an f32 tensor to write into (else a new one).
    """

    def __init__(self, artifact_dir: str, device=None, driver: Optional[CudaDriver] = None):
        import torch  # noqa: PLC0415 (lazy on purpose)

        self._torch = torch
        self.artifact_dir = artifact_dir
        self.manifest = load_manifest(artifact_dir)
        check_problem_buffers(self.manifest)
        self.problem: Problem = self.manifest.problem  # type: ignore[assignment]
        if not torch.cuda.is_available():
            raise CudaError("torch sees no CUDA device")
        torch.cuda.init()
        self.device = torch.device("cuda", torch.cuda.current_device() if device is None
                                   else torch.device(device).index or 0)
        # Make sure torch's (primary) context exists and is current on this thread.
        with torch.cuda.device(self.device):
            torch.zeros(1, device=self.device)
            torch.cuda.synchronize(self.device)
            self.driver = driver or CudaDriver()
            self.driver.ensure_context(self.device.index)
            ptx_path = os.path.join(self.manifest.path or artifact_dir, self.manifest.ptx)
            with open(ptx_path, "rb") as f:
                ptx = f.read()
            self._module = self.driver.load_module(ptx)
            functions = {}
            max_shared: Dict[str, int] = {}
            for s in self.manifest.steps:
                if s.op == "launch":
                    if s.kernel not in functions:
                        functions[s.kernel] = self.driver.get_function(self._module, s.kernel)
                    max_shared[s.kernel] = max(max_shared.get(s.kernel, 0), s.shared_bytes)
            for name, nbytes in max_shared.items():
                if nbytes > _DEFAULT_SHARED_LIMIT:
                    limit = self.driver.max_shared_optin(self.device.index)
                    if nbytes > limit:
                        raise CudaError(f"kernel '{name}' needs {nbytes} bytes of dynamic shared memory; "
                                        f"the device allows {limit}")
                    self.driver.set_max_dynamic_shared(functions[name], nbytes, name)
            self.program = Program(self.manifest, functions)
            # Workspaces from torch's caching allocator (kept for the object's lifetime).
            self._workspaces = {}
            for b in self.manifest.buffers_with_role("workspace"):
                nbytes = max(ALLOC_ALIGN, (b.bytes + ALLOC_ALIGN - 1) // ALLOC_ALIGN * ALLOC_ALIGN)
                # zero_init: zeroed once here, never per call (self-resetting counters).
                alloc = torch.zeros if b.zero_init else torch.empty
                self._workspaces[b.name] = alloc(nbytes, dtype=torch.uint8, device=self.device)
            self._workspace_ptrs = {n: t.data_ptr() for n, t in self._workspaces.items()}
            torch.cuda.synchronize(self.device)
        self.out_name = self.manifest.output_name()
        self.x_dtype = _torch_dtype(torch, self.problem.dtype)

    # -- info -------------------------------------------------------------------
    def regions(self) -> List[Dict[str, Any]]:
        """One entry per region (order of first appearance): its steps, kernels and launches."""
        out = []
        for region, idx in self.manifest.regions().items():
            steps = [self.manifest.steps[i] for i in idx]
            out.append({
                "region": region,
                "steps": idx,
                "launches": sum(1 for s in steps if s.op == "launch"),
                "kernels": [s.kernel for s in steps if s.op == "launch"],
                "other_ops": [s.describe() for s in steps if s.op != "launch"],
            })
        return out

    @property
    def num_launches(self) -> int:
        return self.manifest.num_launches()

    def workspace_bytes(self) -> int:
        return sum(b.bytes for b in self.manifest.buffers_with_role("workspace"))

    def __repr__(self) -> str:
        p = self.problem
        return (f"AotFunction({self.artifact_dir!r}, pipeline={self.manifest.pipeline!r}, V={p.V} N={p.N} D={p.D} "
                f"S={p.S} P={p.P} {p.dtype}, {len(self.manifest.steps)} steps, {self.num_launches} launches)")

    # -- call -------------------------------------------------------------------
    def _check_tensor(self, t, name: str, dtype, shape: Tuple[int, ...]):
        torch = self._torch
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor")
        if t.device != self.device:
            raise ValueError(f"{name} is on {t.device}, the artifact was loaded on {self.device}")
        if t.dtype != dtype:
            raise TypeError(f"{name} is {t.dtype}, the artifact expects {dtype}")
        numel = 1
        for d in shape:
            numel *= d
        if t.numel() != numel:
            raise ValueError(f"{name} has shape {tuple(t.shape)}, the artifact expects {shape}")
        if not t.is_contiguous():
            raise ValueError(f"{name} must be contiguous")

    def __call__(self, x, seed: Optional[int] = None, proj=None, out=None):
        torch = self._torch
        p = self.problem
        self._check_tensor(x, "x", self.x_dtype, p.x_shape())
        ptrs = dict(self._workspace_ptrs)
        ptrs["x"] = x.data_ptr()
        if self.manifest.has_buffer("proj"):
            if proj is None:
                raise ValueError("this artifact takes an explicit projection: pass proj= ([D, S])")
            self._check_tensor(proj, "proj", self.x_dtype, (p.D, p.S))
            ptrs["proj"] = proj.data_ptr()
        elif proj is not None:
            raise ValueError("this artifact generates its projection from the seed; proj= is not used")
        if out is None:
            out = torch.empty(p.out_shape(), dtype=torch.float32, device=self.device)
        else:
            self._check_tensor(out, "out", torch.float32, p.out_shape())
        ptrs[self.out_name] = out.data_ptr()
        scalars = scalar_values_for(self.manifest, seed)
        stream = torch.cuda.current_stream(self.device).cuda_stream
        self.program.enqueue(self.driver, stream, ptrs, scalars)
        return out

    def __del__(self):
        try:
            if getattr(self, "_module", None) is not None:
                self._torch.cuda.synchronize(self.device)
                self.driver.unload_module(self._module)
                self._module = None
        except Exception:  # noqa: BLE001 (interpreter shutdown, context gone)
            pass


# ---------------------------------------------------------------------------
# Command line: run once and validate (GPU)
# ---------------------------------------------------------------------------


def _reference_for(problem: Problem, x64, A64):
    from . import reference as ref

    T = ref.statistics(x64, A64, num_points=problem.P, t_max=problem.t_max, clip_mode=problem.clip,
                       clip_value=problem.clip_value)
    if problem.reduction == "mean":
        return float(T.mean())
    if problem.reduction == "sum":
        return float(T.sum())
    return T


def main(argv=None) -> int:
    import argparse

    import numpy as np

    ap = argparse.ArgumentParser(prog="python -m sigreg.aot", description=__doc__.split("\n")[0])
    ap.add_argument("artifact", help="artifact directory (manifest.json + PTX)")
    ap.add_argument("--seed", type=int, default=1234, help="projection seed")
    ap.add_argument("--input-seed", type=int, default=42)
    ap.add_argument("--runs", type=int, default=3, help="runs that must agree bitwise")
    args = ap.parse_args(argv)

    import torch

    from . import philox

    f = AotFunction(args.artifact)
    p = f.problem
    print(f)
    for r in f.regions():
        print(f"  region {r['region']:<24} launches={r['launches']} kernels={','.join(r['kernels'])}")
    g = torch.Generator(device=f.device).manual_seed(args.input_seed)
    x = torch.randn(p.x_shape(), generator=g, device=f.device, dtype=torch.float32).to(f.x_dtype)
    proj = None
    if p.projection == "explicit":
        proj = torch.from_numpy(philox.projection(args.seed, p.D, p.S)).to(f.device).to(f.x_dtype)
        A64 = proj.double().cpu().numpy()
    else:
        A64 = philox.projection_f64(args.seed, p.D, p.S)
    x64 = x.double().cpu().numpy()
    expected = np.asarray(_reference_for(p, x64, A64), dtype=np.float64)
    results = []
    for _ in range(max(1, args.runs)):
        out = torch.full(p.out_shape(), float("nan"), dtype=torch.float32, device=f.device)  # poisoned
        f(x, seed=args.seed, proj=proj, out=out)
        torch.cuda.synchronize(f.device)
        results.append(out.cpu().numpy().astype(np.float64))
    got = results[0]
    tol = 1e-4 if p.dtype == "f32" else 2e-3
    finite = bool(np.all(np.isfinite(got)))
    den = float(np.linalg.norm(expected)) or 1.0
    rel = float(np.linalg.norm(got - expected) / den) if finite else float("nan")
    same = all(np.array_equal(results[0], r) for r in results[1:])
    ok = finite and rel <= tol and same
    print(f"loss={got.ravel()[:4]} reference={expected.ravel()[:4]} rel_err={rel:.3e} tol={tol:.0e} "
          f"bitwise_repeatable={same}")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
