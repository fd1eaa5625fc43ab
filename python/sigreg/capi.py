"""Compiled artifacts on torch tensors through the runtime's C ABI (include/sigreg/Runtime/CApi.h).

``CapiFunction(DIR)`` runs an AOT artifact (docs/AOT.md) with the same C++ executor as
``sigreg-aot-run`` and ``sigreg-run``, loaded from ``libsigreg_aot.so`` with ctypes: one
``sigreg_aot_run`` call per step list, on torch's current stream, so calls order with torch work
and can be captured in a CUDA graph. Buffers are bound to tensors by address. A binding is only
redone when an address changes, because the runtime re-encodes its TMA descriptors then. This
keeps the host cost of a call to a few ctypes calls; ``sigreg.aot.AotFunction`` re-implements
the executor in Python instead.

The library is found at ``$SIGREG_AOT_LIB``, else in this repository's build folders (``build``,
``build-nomlir``) or ``/tmp/sigreg-build-nomlir`` (scripts/gpu-check.sh); build it with
``cmake -S . -B build-nomlir -DSIGREG_ENABLE_MLIR=OFF && cmake --build build-nomlir``.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path
from typing import Dict, Optional

from .aot import Manifest, load_manifest

__all__ = ["CapiError", "library_path", "load_library", "CapiFunction"]

_REPO = Path(__file__).resolve().parents[2]


class CapiError(RuntimeError):
    pass


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


def load_library():
    """The C ABI as a ctypes library (loaded once), with its signatures declared."""
    global _LIB
    if _LIB is not None:
        return _LIB
    path = library_path()
    if path is None:
        raise CapiError("libsigreg_aot.so not found: set SIGREG_AOT_LIB or build the runtime "
                        "(cmake -S . -B build-nomlir -DSIGREG_ENABLE_MLIR=OFF && cmake --build build-nomlir)")
    lib = ctypes.CDLL(path)
    h = ctypes.c_void_p
    lib.sigreg_aot_load.argtypes = [ctypes.c_char_p, ctypes.POINTER(h)]
    lib.sigreg_aot_load_error.restype = ctypes.c_char_p
    lib.sigreg_aot_bind.argtypes = [h, ctypes.c_char_p, ctypes.c_uint64]
    lib.sigreg_aot_buffer_bytes.argtypes = [h, ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint64)]
    lib.sigreg_aot_set_seed.argtypes = [h, ctypes.c_int64]
    lib.sigreg_aot_run.argtypes = [h, ctypes.c_void_p]
    lib.sigreg_aot_synchronize.argtypes = [h]
    lib.sigreg_aot_last_error.argtypes = [h]
    lib.sigreg_aot_last_error.restype = ctypes.c_char_p
    lib.sigreg_aot_destroy.argtypes = [h]
    lib.sigreg_aot_destroy.restype = None
    _LIB = lib
    return lib


class CapiFunction:
    """An artifact callable on torch tensors: ``f(x, seed=7)`` (seeded), ``f(x, proj=A)``
    (explicit), ``f(x, seed, grad=g)`` (gradient artifacts); ``out`` to write into. Returns the
    f32 output: the loss (0-d), the statistics ([S] or [V, S]), or dL/dx (x's shape)."""

    def __init__(self, artifact_dir: str):
        import torch  # noqa: PLC0415 (lazy on purpose)

        self._torch = torch
        self.manifest: Manifest = load_manifest(artifact_dir)
        self.problem = self.manifest.problem
        if not torch.cuda.is_available():
            raise CapiError("torch sees no CUDA device")
        torch.cuda.init()
        torch.zeros(1, device="cuda")  # torch's primary context exists and is current
        self._lib = load_library()
        handle = ctypes.c_void_p()
        if self._lib.sigreg_aot_load(str(artifact_dir).encode(), ctypes.byref(handle)) != 0:
            raise CapiError(f"sigreg_aot_load({artifact_dir}): "
                            f"{self._lib.sigreg_aot_load_error().decode()}")
        self._h = handle
        self._bound: Dict[str, int] = {}
        self._seed: Optional[int] = None
        self._io_names = frozenset(b.name for b in self.manifest.buffers
                                   if b.role in ("input", "output"))

    def _check(self, rc: int, what: str):
        if rc != 0:
            raise CapiError(f"{what}: {self._lib.sigreg_aot_last_error(self._h).decode()}")

    def _bind(self, name: str, tensor) -> None:
        ptr = tensor.data_ptr()
        if self._bound.get(name) != ptr:
            self._check(self._lib.sigreg_aot_bind(self._h, name.encode(), ptr), f"bind {name}")
            self._bound[name] = ptr

    def _out_shape(self):
        p = self.problem
        if getattr(p, "gradient", False):
            return p.x_shape()
        return p.out_shape()

    def __call__(self, x, seed: Optional[int] = None, proj=None, grad=None, out=None):
        torch = self._torch
        p = self.problem
        if not x.is_cuda or not x.is_contiguous():
            raise ValueError("x must be a contiguous CUDA tensor")
        self._bind("x", x)
        if p.projection == "explicit":
            if proj is None:
                raise ValueError("this artifact takes an explicit projection: pass proj=")
            self._bind("proj", proj)
        elif seed is None:
            raise ValueError("this artifact generates its projection: pass seed=")
        elif seed != self._seed:
            self._check(self._lib.sigreg_aot_set_seed(self._h, int(seed)), "set_seed")
            self._seed = seed
        if getattr(p, "gradient", False):
            if grad is None:
                raise ValueError("a gradient artifact needs grad= (the loss's cotangent)")
            self._bind("grad", grad)
        if out is None:
            out = torch.empty(self._out_shape(), dtype=torch.float32, device=x.device)
        self._bind(self.manifest.output_name(), out)
        # 0 would mean the runtime's own stream: torch's default stream is the
        # legacy stream, CU_STREAM_LEGACY (1).
        stream = torch.cuda.current_stream(x.device).cuda_stream or 1
        self._check(self._lib.sigreg_aot_run(self._h, ctypes.c_void_p(stream)), "run")
        return out

    def run(self, buffers: Dict[str, "object"], seed: Optional[int] = None) -> None:
        """Runs the artifact on named tensors (contiguous, on the device, the sizes of the
        manifest's buffers): every input and output of the manifest, by name, e.g. ``x``,
        ``cos`` and ``sin`` for the ``ecf`` entry point; ``seed`` for a seeded projection. On
        torch's current stream, like ``__call__``."""
        torch = self._torch
        names = self._io_names
        if len(buffers) != len(names) or not names.issuperset(buffers):
            missing, extra = names - set(buffers), set(buffers) - names
            raise ValueError(f"the artifact takes {sorted(names)}: missing {sorted(missing)}, "
                             f"unknown {sorted(extra)}")
        device = None
        for name, t in buffers.items():
            if not t.is_cuda or not t.is_contiguous():
                raise ValueError(f"'{name}' must be a contiguous CUDA tensor")
            device = t.device
            self._bind(name, t)
        if self.problem.projection == "seed":
            if seed is None:
                raise ValueError("this artifact generates its projection: pass seed=")
            if seed != self._seed:
                self._check(self._lib.sigreg_aot_set_seed(self._h, int(seed)), "set_seed")
                self._seed = seed
        stream = torch.cuda.current_stream(device).cuda_stream or 1
        self._check(self._lib.sigreg_aot_run(self._h, ctypes.c_void_p(stream)), "run")

    def close(self):
        if getattr(self, "_h", None):
            self._lib.sigreg_aot_destroy(self._h)
            self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 (interpreter shutdown)
            pass
