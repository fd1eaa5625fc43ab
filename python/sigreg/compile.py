"""Compile on demand, with an on-disk artifact cache (docs/TORCH.md).

``compile_artifact(problem)`` returns the directory of an AOT artifact (``manifest.json`` +
``sigreg.ptx``, docs/AOT.md) for a SIGReg problem: the loss (``sigreg.loss``) or its gradient
(``sigreg.loss_grad``), through the fused or the naive GPU pipeline. The first request for a
problem runs the project's compiler, ``sigreg-run --compile-only --emit-artifact``; its result is
kept under a key of the problem, the pipeline, the chip and the compiler's own bytes, so later
processes, and the same process again, reuse it, the way Triton caches kernels.

The compiler is found in this order:
- ``$SIGREG_RUN``;
- ``sigreg-run`` on ``PATH`` (the release tarball of docs/RELEASE.md installs one);
- ``build/bin/sigreg-run`` of this repository.

The cache is ``$SIGREG_CACHE_DIR``, else ``~/.cache/sigreg``. Compiling needs no GPU. Without a
compiler and without a cached artifact, the request raises :class:`CompilerNotFound`, which names
both.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Dict, Optional

__all__ = ["Problem", "CompilerNotFound", "CompileError", "find_compiler", "cache_dir",
           "source", "compile_artifact"]

_REPO = Path(__file__).resolve().parents[2]


class CompilerNotFound(RuntimeError):
    """No cached artifact for the request and no compiler to make one."""


class CompileError(RuntimeError):
    """The compiler rejected the problem; the message carries its diagnostics."""


@dataclasses.dataclass(frozen=True)
class Problem:
    """One compiled entry: shapes, dtype and knobs (docs/CONTRACT.md section 1)."""

    N: int
    D: int
    S: int
    V: int = 0  # 0: x is [N, D]; else [V, N, D]
    P: int = 17
    t_max: float = 3.0
    clip: str = "none"  # none | zero_below | clamp_min
    clip_value: float = 0.0
    reduction: str = "mean"  # mean | sum | none
    dtype: str = "bf16"  # bf16 | f16 | f32
    # seed: an i64 argument; explicit: A [D, S]; step: the seed read from an i64 counter in
    # device memory (sigreg.advance_step), which the forward advances by one (docs/AOT.md).
    projection: str = "seed"  # seed | explicit | step
    gradient: bool = False  # sigreg.loss_grad instead of sigreg.loss
    # A training step: sigreg.loss and sigreg.loss_grad in one function, (x, seed | A, g) ->
    # (loss, dL/dx), so that they share one forward (the artifact's outputs 'out' and 'dx').
    step: bool = False
    # A step in two phases (docs/AOT.md): dL/dx in x's dtype (an arith.truncf of the gradient),
    # and the loss's cotangent read only by the backward GEMM (sigreg-run --defer-cotangent),
    # so that the forward phase runs at forward time and the backward phase with the cotangent.
    # Steps of a scalar loss (mean, sum) with a 16-bit x only.
    phased: bool = False
    # An entry point of the DDP split (docs/TORCH.md) instead of the loss: "ecf", x [V, N, D]
    # and the projection to the local ECF means cos, sin [V, S, P]; "ecf_backward", x, the
    # projection and the means' cotangents dcos, dsin to dL/dx. clip and gradient do not
    # apply (the caller computes the statistic from the means); for "ecf", reduction says
    # whether that loss is reduced over the slices (mean, sum) or per slice (none), which
    # decides the accuracy the forward needs.
    entry_point: str = ""

    def __post_init__(self):
        for name in ("N", "D", "S", "P"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.V < 0:
            raise ValueError(f"V must be >= 0, got {self.V}")
        if self.clip not in ("none", "zero_below", "clamp_min"):
            raise ValueError(f"unknown clip {self.clip!r}")
        if self.reduction not in ("mean", "sum", "none"):
            raise ValueError(f"unknown reduction {self.reduction!r}")
        if self.dtype not in ("bf16", "f16", "f32"):
            raise ValueError(f"unknown dtype {self.dtype!r}")
        if self.projection not in ("seed", "explicit", "step"):
            raise ValueError(f"unknown projection {self.projection!r}")
        if self.entry_point not in ("", "ecf", "ecf_backward"):
            raise ValueError(f"unknown entry point {self.entry_point!r}")
        if self.entry_point and (self.V < 1 or self.gradient or self.step):
            raise ValueError("an entry point takes x [V, N, D] (V >= 1) and is not a gradient "
                             "of the loss")
        if self.step and self.gradient:
            raise ValueError("a step computes the loss and its gradient: gradient does not apply")
        if self.phased and not (self.step and self.reduction != "none" and self.dtype != "f32"):
            raise ValueError("phased applies to a step of a scalar loss (mean, sum) with a bf16 "
                             "or f16 x")


def _f(v: float) -> str:
    """An MLIR float literal (it needs a '.': 1e-05 -> 1.0e-05)."""
    s = repr(float(v))
    if "." not in s and "e" in s:
        mantissa, exp = s.split("e")
        s = f"{mantissa}.0e{exp}"
    return s


def _seed_argument(p: Problem):
    """(the argument, the entry's first lines) of a seeded projection: ``%seed: i64``, or the
    step counter ``%step: memref<i64>`` read (and advanced) by sigreg.advance_step."""
    if p.projection == "step":
        return "%step: memref<i64>", "  %seed = sigreg.advance_step %step : memref<i64>\n"
    return "%seed: i64", ""


def _entry_point_source(p: Problem) -> str:
    """The entry points of the DDP split: the mid-level ops that sigreg.loss decomposes into up
    to the all-reduce boundary (``ecf``), and their backward (``ecf_backward``)."""
    x = f"tensor<{p.V}x{p.N}x{p.D}x{p.dtype}>"
    y = f"tensor<{p.V}x{p.N}x{p.S}xf32>"
    ecf = f"tensor<{p.V}x{p.S}x{p.P}xf32>"
    if p.projection != "explicit":
        a = f"tensor<{p.D}x{p.S}xf32>"
        arg2, make_a = _seed_argument(p)
        make_a += f"  %a = sigreg.projection seed(%seed) : {a}\n"
    else:
        a = f"tensor<{p.D}x{p.S}x{p.dtype}>"
        arg2, make_a = f"%a: {a}", ""
    project = f"  %y = sigreg.project %x, %a : {x}, {a} -> {y}\n"
    t_max = f"t_max = {_f(p.t_max)}"
    if p.entry_point == "ecf":
        # A loss reduced over the slices lets the compiler round g to 16 bits where its error
        # budget allows (EcfSchedule.h, needsSplitProjection): it says so on the results.
        res = f"{ecf} {{sigreg.reduced}}" if p.reduction != "none" else ecf
        return (f"func.func @sigreg(%x: {x}, {arg2}) -> ({res}, {res}) {{\n{make_a}{project}"
                f"  %c, %s = sigreg.ecf %y {t_max} : {y} -> {ecf}\n"
                f"  return %c, %s : {ecf}, {ecf}\n}}\n")
    dx = f"tensor<{p.V}x{p.N}x{p.D}xf32>"
    return (f"func.func @sigreg(%x: {x}, {arg2}, %dc: {ecf}, %ds: {ecf}) -> {dx} {{\n"
            f"{make_a}{project}"
            f"  %dy = sigreg.ecf_grad %y, %dc, %ds {t_max} : {y}, {ecf}\n"
            f"  %dx = sigreg.project_transpose %dy, %a : {y}, {a} -> {dx}\n"
            f"  return %dx : {dx}\n}}\n")


def source(p: Problem) -> str:
    """The MLIR entry function ``@sigreg`` of a problem (the form sigreg-run compiles)."""
    if p.entry_point:
        return _entry_point_source(p)
    x = f"tensor<{p.N}x{p.D}x{p.dtype}>" if p.V == 0 else f"tensor<{p.V}x{p.N}x{p.D}x{p.dtype}>"
    if p.reduction == "none":
        loss = f"tensor<{p.S}xf32>" if p.V == 0 else f"tensor<{p.V}x{p.S}xf32>"
    else:
        loss = "tensor<f32>"
    first = ""
    if p.projection != "explicit":
        arg2, first = _seed_argument(p)
        use = "seed(%seed)"
    else:
        a = f"tensor<{p.D}x{p.S}x{p.dtype}>"
        arg2, use = f"%a: {a}", f"projection(%a : {a})"
    clip = f" clip = {p.clip}({_f(p.clip_value)})" if p.clip != "none" else ""
    knobs = f"slices = {p.S} points = {p.P} t_max = {_f(p.t_max)}{clip} reduction = {p.reduction}"
    dx = x.replace(f"x{p.dtype}>", "xf32>")
    if p.step and p.phased:
        # dL/dx rounded to x's dtype: the backward GEMM stores it so.
        return (f"func.func @sigreg(%x: {x}, {arg2}, %g: {loss}) -> ({loss}, {x}) {{\n"
                f"{first}  %l = sigreg.loss %x {use} {knobs} : {x} -> {loss}\n"
                f"  %dx = sigreg.loss_grad %x {use} grad(%g : {loss}) {knobs} : {x} -> {dx}\n"
                f"  %dxr = arith.truncf %dx : {dx} to {x}\n"
                f"  return %l, %dxr : {loss}, {x}\n}}\n")
    if p.step:
        return (f"func.func @sigreg(%x: {x}, {arg2}, %g: {loss}) -> ({loss}, {dx}) {{\n"
                f"{first}  %l = sigreg.loss %x {use} {knobs} : {x} -> {loss}\n"
                f"  %dx = sigreg.loss_grad %x {use} grad(%g : {loss}) {knobs} : {x} -> {dx}\n"
                f"  return %l, %dx : {loss}, {dx}\n}}\n")
    if p.gradient:
        return (f"func.func @sigreg(%x: {x}, {arg2}, %g: {loss}) -> {dx} {{\n"
                f"{first}  %dx = sigreg.loss_grad %x {use} grad(%g : {loss}) {knobs} : {x} -> {dx}\n"
                f"  return %dx : {dx}\n}}\n")
    return (f"func.func @sigreg(%x: {x}, {arg2}) -> {loss} {{\n"
            f"{first}  %l = sigreg.loss %x {use} {knobs} : {x} -> {loss}\n"
            f"  return %l : {loss}\n}}\n")


def find_compiler() -> Optional[str]:
    """The path of ``sigreg-run`` (see the module docstring), or None."""
    env = os.environ.get("SIGREG_RUN")
    if env:
        return env if os.access(env, os.X_OK) else None
    on_path = shutil.which("sigreg-run")
    if on_path:
        return on_path
    built = _REPO / "build" / "bin" / "sigreg-run"
    return str(built) if os.access(built, os.X_OK) else None


def cache_dir() -> Path:
    return Path(os.environ.get("SIGREG_CACHE_DIR") or Path.home() / ".cache" / "sigreg")


_COMPILER_IDS: Dict[str, str] = {}


def _compiler_id(path: str) -> str:
    """A digest of the compiler binary (cached per process by path, size and mtime)."""
    st = os.stat(path)
    memo = f"{os.path.realpath(path)}:{st.st_size}:{st.st_mtime_ns}"
    if memo not in _COMPILER_IDS:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        _COMPILER_IDS[memo] = h.hexdigest()[:16]
    return _COMPILER_IDS[memo]


def _key(p: Problem, pipeline: str, chip: str, compiler_id: str) -> str:
    text = json.dumps(dict(problem=dataclasses.asdict(p), pipeline=pipeline, chip=chip,
                           compiler=compiler_id), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _index_path() -> Path:
    return cache_dir() / "index.json"


def _read_index() -> Dict[str, str]:
    try:
        return json.loads(_index_path().read_text())
    except (OSError, ValueError):
        return {}


def _request_key(p: Problem, pipeline: str, chip: str) -> str:
    """The request without the compiler (to find an artifact when no compiler is at hand)."""
    return _key(p, pipeline, chip, "any")


def compile_artifact(p: Problem, pipeline: str = "fused", chip: str = "sm_90a",
                     compiler: Optional[str] = None) -> Path:
    """The artifact directory (holding ``manifest.json``) of ``p`` through ``pipeline``.

    Uses the cache when it holds the artifact of this compiler; compiles otherwise. Without a
    compiler, the newest cached artifact of the same request is used if there is one.
    """
    if pipeline not in ("fused", "naive"):
        raise ValueError(f"pipeline must be 'fused' or 'naive', got {pipeline!r}")
    compiler = compiler or find_compiler()
    root = cache_dir()
    if compiler is None:
        entry = _read_index().get(_request_key(p, pipeline, chip))
        if entry and (root / entry / pipeline / "manifest.json").is_file():
            return root / entry / pipeline
        raise CompilerNotFound(
            f"no cached artifact for {p} ({pipeline}, {chip}) under {root}, and no compiler: set "
            "SIGREG_RUN to a sigreg-run binary or put one on PATH (build it with the README's "
            "commands, or install the release tarball of docs/RELEASE.md)")
    key = _key(p, pipeline, chip, _compiler_id(compiler))
    out = root / key / pipeline
    if (out / "manifest.json").is_file():
        return out
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root, prefix=".compile-") as tmp:
        src = Path(tmp) / "sigreg.mlir"
        src.write_text(source(p))
        emit = Path(tmp) / "artifact"
        cmd = [compiler, str(src), "--target=cuda", "--compile-only", f"--pipeline={pipeline}",
               f"--chip={chip}", f"--emit-artifact={emit}"]
        if p.phased:
            cmd.append("--defer-cotangent")
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            raise CompileError(f"{' '.join(cmd)} failed ({run.returncode}):\n{run.stderr}{run.stdout}")
        (emit / pipeline / "source.mlir").write_text(source(p))
        final = root / key
        try:
            os.replace(emit, final)  # atomic: a concurrent compile of the same key may win
        except OSError:
            if not (final / pipeline / "manifest.json").is_file():
                raise
    index = _read_index()
    index[_request_key(p, pipeline, chip)] = key
    tmp_index = root / f".index-{os.getpid()}.json"
    tmp_index.write_text(json.dumps(index, indent=1, sort_keys=True))
    os.replace(tmp_index, _index_path())
    return out
