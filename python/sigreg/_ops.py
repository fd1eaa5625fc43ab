"""The compiled artifacts as torch operators: ``libsigreg_torch_ops.so`` (python/csrc/TorchOps.cpp,
docs/TORCH.md "The ops path"), loaded once, beside the ``libsigreg_aot.so`` that
``sigreg.capi.load_library()`` loaded.

``torch.ops.sigreg.call`` is the one-call form of a loss or gradient artifact (what
``CapiFunction.__call__`` does through ctypes), ``torch.ops.sigreg.step`` and ``step_phased``
the training steps with their autograd nodes in C++ (``_StepCompiled``, ``_StepPhased``).
``sigreg.capi`` registers each handle it loads (:func:`register`) and calls them where the
library is loaded; where it is not (not built, ``SIGREG_NO_TORCH_OPS=1``, a library that does
not load, or one that would call another copy of the runtime), everything runs through
ctypes as before.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import warnings
from pathlib import Path
from typing import Optional

__all__ = ["LIBRARY_NAME", "RUNTIME_ERROR_PREFIX", "ctypes_only", "disabled", "library_path", "load",
           "op", "reason", "register", "release", "runtime_error"]

LIBRARY_NAME = "libsigreg_torch_ops.so"
# A runtime failure inside an op: RuntimeError("sigreg_aot_<what>: <the runtime's message>"),
# which sigreg.capi raises as CapiError("<what>: ...") like its ctypes path.
RUNTIME_ERROR_PREFIX = "sigreg_aot_"

_LOADED: Optional[bool] = None  # None: not tried yet
_REASON = ""  # why the library is not used, when it is not
_CTYPES_ONLY = 0  # depth of ctypes_only() blocks


def disabled() -> bool:
    """The ctypes path only: with ``SIGREG_NO_TORCH_OPS`` set to anything but "" or "0". The
    ops path is the default since it ran on a GPU (thirtieth session, docs/TORCH.md "The ops
    path": the ctypes path's bits, less host time per call)."""
    return os.environ.get("SIGREG_NO_TORCH_OPS", "0") not in ("", "0")


def library_path() -> Optional[Path]:
    """Where the library must be: beside the runtime that sigreg.capi loaded (one copy of the
    runtime in the process: the ops take the handles sigreg.capi made). None without a
    runtime."""
    from . import capi  # noqa: PLC0415

    try:
        capi.load_library()
    except capi.CapiError:
        return None
    return Path(capi.loaded_library_path()).parent / LIBRARY_NAME


def load() -> bool:
    """Loads the library once: True when its ops are usable. Missing (not built) or turned off
    (``SIGREG_NO_TORCH_OPS=1``) it is silently not used; a library that does not load, or
    whose ops would call another copy of the runtime, is not used with a RuntimeWarning."""
    global _LOADED, _REASON
    if _LOADED is not None:
        return _LOADED
    _LOADED = False
    if disabled():
        _REASON = "SIGREG_NO_TORCH_OPS is set"
        return False
    path = library_path()
    if path is None or not path.is_file():
        _REASON = f"{LIBRARY_NAME} not built (scripts/build-torch-ops.sh)"
        return False
    import torch  # noqa: PLC0415

    from . import capi  # noqa: PLC0415

    try:
        if str(path) not in torch.ops.loaded_libraries:
            torch.ops.load_library(str(path))
        ours = int(torch.ops.sigreg.runtime_call_address.default())
    except (OSError, RuntimeError, AttributeError) as e:
        _REASON = f"{path} does not load: {e}"
        warnings.warn(f"sigreg: {_REASON}; running artifacts through ctypes", RuntimeWarning,
                      stacklevel=2)
        return False
    theirs = ctypes.cast(capi.load_library().sigreg_aot_call, ctypes.c_void_p).value
    if ours != theirs:
        _REASON = (f"{path} calls another libsigreg_aot.so than the one sigreg.capi loaded "
                   f"({capi.loaded_library_path()})")
        warnings.warn(f"sigreg: refusing {path}: {_REASON}; running artifacts through ctypes",
                      RuntimeWarning, stacklevel=2)
        return False
    _LOADED = True
    _REASON = ""
    return True


def reason() -> str:
    """Why the ops are not used ("" when they are, or before :func:`load`)."""
    return _REASON


@contextlib.contextmanager
def ctypes_only():
    """Artifacts loaded inside the block (``CapiFunction``) do not register with the ops: they
    run through ctypes, so that one process can compare both paths (``python -m
    sigreg.module_check --ops``)."""
    global _CTYPES_ONLY
    _CTYPES_ONLY += 1
    try:
        yield
    finally:
        _CTYPES_ONLY -= 1


def op(name: str):
    """``torch.ops.sigreg.<name>.default`` as the hot paths call it: the builtin its
    ``OpOverload.__call__`` forwards to (that method is ``return self._op(*args, **kwargs)``;
    calling the builtin saves its Python frame, 0.15 us on the CPU machine), or the OpOverload
    itself where a torch has no ``_op``."""
    import torch  # noqa: PLC0415

    overload = getattr(torch.ops.sigreg, name).default
    return getattr(overload, "_op", overload)


def register(fn, owned: bool = True) -> Optional[int]:
    """Registers ``fn``'s handle (a freshly loaded ``sigreg.capi.CapiFunction``) with the ops:
    its device, whether it is seeded, each input and output's dtype and size and, for a phased
    step, the workspaces of its backward phase. From then on the ops own the handle
    (``release_artifact`` destroys it once no autograd node holds it; ``owned=False`` leaves
    that to the caller). Returns the handle as an int, or None when the ops are not used."""
    if _CTYPES_ONLY or not load():
        return None
    import torch  # noqa: PLC0415

    from .capi import _expected  # noqa: PLC0415

    info = fn.info
    names, roles, dtypes, sizes = [], [], [], []
    for b in info.buffers:
        if b.role != "workspace":
            dtype, nbytes = _expected(info, b.name)
            names.append(b.name)
            roles.append(b.role)
            dtypes.append(dtype)
            sizes.append(nbytes)
    p = info.problem
    # The one-call form's output (call's out_shape when none is given): the loss, or dL/dx.
    out_shape = list(p.x_shape() if p.gradient else p.out_shape())
    workspaces, workspace_bytes, shares, offset = [], [], "", 0
    phased = info.phased()
    if phased:
        for b in info.backward_workspaces():
            workspaces.append(b.name)
            workspace_bytes.append(b.bytes)
            if b.shares is not None and b.shares[0] == "dx":
                shares, offset = b.name, b.shares[1]
    handle = int(fn._h.value)
    torch.ops.sigreg.register_artifact.default(
        handle, fn.device_index, owned, p.projection == "seed", phased, names, roles, dtypes,
        sizes, out_shape, workspaces, workspace_bytes, shares, offset)
    return handle


def release(handle: int) -> None:
    import torch  # noqa: PLC0415

    torch.ops.sigreg.release_artifact.default(handle)


def runtime_error(e: BaseException, capi_error):
    """The CapiError that the ctypes path raises for a runtime failure that an op reported
    (``RuntimeError("sigreg_aot_call: ...")`` -> ``capi_error("call: ...")``), or None for any
    other exception (the op refused its arguments before running anything: the caller then
    runs the checks that say what is wrong)."""
    if type(e) is RuntimeError:
        text = str(e)
        if text.startswith(RUNTIME_ERROR_PREFIX):
            return capi_error(text[len(RUNTIME_ERROR_PREFIX):])
    return None
