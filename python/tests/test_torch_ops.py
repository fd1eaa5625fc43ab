"""The torch operator library (python/csrc/TorchOps.cpp, sigreg._ops) on a machine without a GPU:
scripts/build-torch-ops.sh builds it beside libsigreg_aot.so (a no-op when scripts/build.sh
already did), it loads and registers its ops, FakeTensor and torch.compile trace them, the
training steps' C++ autograd nodes work (on meta tensors, which run no artifact), the module's
wiring takes them, and bad input raises a clear error. The GPU runs are
``python -m sigreg.module_check --ops --host --host-breakdown`` (docs/TORCH.md)."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from sigreg import _ops, capi  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
RAGGED = Path(__file__).resolve().parent / "data" / "aot" / "ragged-bf16-clamp" / "fused"

SCHEMAS = {
    "call": "sigreg::call(Tensor x, int handle, int seed, Tensor(a!)? aux=None, "
            "int[]? out_shape=None) -> Tensor",
    "step": "sigreg::step(Tensor x, int handle, int seed, Tensor(a!)? counter, Tensor grad) "
            "-> Tensor",
    "step_run": "sigreg::step_run(Tensor x, int handle, int seed, Tensor(a!)? counter, "
                "Tensor grad) -> (Tensor, Tensor)",
    "step_phased": "sigreg::step_phased(Tensor x, int handle, int seed, Tensor(a!)? counter) "
                   "-> Tensor",
    "phase_forward": "sigreg::phase_forward(Tensor x, int handle, int seed, "
                     "Tensor(a!)? counter) -> (Tensor, Tensor, Tensor)",
    "phase_backward": "sigreg::phase_backward(Tensor grad, Tensor(a!) workspaces, "
                      "Tensor(b!) dx_buffer, int handle, int[] x_shape, ScalarType dtype) "
                      "-> Tensor",
    "register_artifact": "sigreg::register_artifact(int handle, int device, bool owned, "
                         "bool seeded, bool phased, str[] buffers, str[] roles, str[] dtypes, int[] bytes, "
                         "int[] out_shape, str[] workspaces, int[] workspace_bytes, "
                         "str shares, int shares_offset) -> ()",
    "release_artifact": "sigreg::release_artifact(int handle) -> ()",
    "runtime_call_address": "sigreg::runtime_call_address() -> int",
}

# Fake handles (never dereferenced: registered unowned, used with CPU and meta tensors only).
PHASED, STEP, LOSS = 0x5160000, 0x5170000, 0x5180000


@pytest.fixture(scope="module")
def ops():
    """torch.ops.sigreg with the library loaded, after scripts/build-torch-ops.sh; the fake
    artifacts registered: a phased step (x [8, 16] bf16 read with a step counter, dL/dx in bf16,
    two backward workspaces, one sharing dL/dx's allocation), a step run whole (dL/dx f32,
    seeded) and a seeded loss."""
    path = capi.library_path()
    if path is None:
        pytest.skip("libsigreg_aot.so not built")
    lib_dir = Path(path).parent
    if lib_dir.name != "lib":
        pytest.skip(f"the runtime is not in a build folder's lib/ ({path})")
    if os.environ.get("SIGREG_NO_TORCH_OPS", "0") not in ("", "0"):
        pytest.skip("SIGREG_NO_TORCH_OPS is set")
    r = subprocess.run(["bash", str(REPO / "scripts" / "build-torch-ops.sh"), str(lib_dir.parent)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    if "skipped" in r.stdout:
        pytest.skip(r.stdout.strip())
    assert _ops.load(), _ops.reason()
    s = torch.ops.sigreg
    s.register_artifact(PHASED, 0, False, False, True, ["x", "step", "grad", "out", "dx"],
                        ["input", "input", "input", "output", "output"],
                        ["bf16", "i64", "f32", "f32", "bf16"], [256, 8, 4, 4, 256], [],
                        ["ws3", "ws4"], [1000, 512], "ws4", 64)
    s.register_artifact(STEP, 0, False, True, False, ["x", "grad", "out", "dx"],
                        ["input", "input", "output", "output"], ["bf16", "f32", "f32", "f32"],
                        [256, 4, 4, 512], [], [], [], "", 0)
    s.register_artifact(LOSS, 0, False, True, False, ["x", "out"], ["input", "output"], ["bf16", "f32"],
                        [256, 4], [], [], [], "", 0)
    yield s
    for h in (PHASED, STEP, LOSS):
        s.release_artifact(h)


def test_library_loads_beside_the_runtime_with_its_schemas(ops):
    lib = capi.load_library()
    assert _ops.library_path() == Path(capi.loaded_library_path()).parent / _ops.LIBRARY_NAME
    # One runtime in the process: the ops call the copy that ctypes loaded.
    assert ops.runtime_call_address() == ctypes.cast(lib.sigreg_aot_call, ctypes.c_void_p).value
    for name, schema in SCHEMAS.items():
        assert str(getattr(ops, name).default._schema) == schema
    if shutil.which("readelf"):
        dyn = subprocess.run(["readelf", "-d", str(_ops.library_path())], capture_output=True,
                             text=True).stdout
        assert "[libsigreg_aot.so]" in dyn and "RUNPATH" in dyn and "[$ORIGIN]" in dyn
        assert "libtorch_python" not in dyn and "libpython" not in dyn


def test_bad_input_raises_a_clear_error(ops):
    x = torch.zeros(8, 16, dtype=torch.bfloat16)
    counter = torch.zeros((), dtype=torch.long)
    with pytest.raises(ValueError, match="sigreg::call: the artifact handle is null"):
        ops.call(x, 0, 1, None, [])
    with pytest.raises(ValueError, match="no artifact is registered with handle 0x63"):
        ops.call(x, 99, 1, None, [])
    with pytest.raises(ValueError, match="'x' must be a CUDA tensor, it is on cpu"):
        ops.call(x, LOSS, 1, None, [])
    with pytest.raises(ValueError, match="not called in one"):
        ops.call(x, PHASED, 1, counter, [])
    with pytest.raises(ValueError, match="sigreg::step_run: the artifact handle is null"):
        ops.step(x.requires_grad_(), 0, 1, None, torch.ones(()))
    with pytest.raises(ValueError, match="sigreg::step_run: 'x' must be a CUDA tensor"):
        ops.step(x, STEP, 1, None, torch.ones(()))
    with pytest.raises(ValueError, match="sigreg::phase_forward: 'x' must be a CUDA tensor"):
        ops.step_phased(x, PHASED, 0, counter)
    with pytest.raises(ValueError, match="has no backward phase"):
        ops.step_phased(x, STEP, 0, None)
    with pytest.raises(ValueError, match="handle is null"):
        ops.phase_backward(torch.ones(()), x, x, 0, [8, 16], torch.bfloat16)
    with pytest.raises(ValueError, match="registered already"):
        ops.register_artifact(LOSS, 0, False, True, False, ["x", "out"], ["input", "output"],
                              ["bf16", "f32"], [256, 4], [], [], [], "", 0)
    with pytest.raises(ValueError, match="unknown dtype 'f64'"):
        ops.register_artifact(0x77, 0, False, True, False, ["x"], ["input"], ["f64"], [8], [], [], [], "",
                              0)
    with pytest.raises(RuntimeError, match="Expected a value of type 'int'"):
        ops.call(x, LOSS, None, None, [])
    ops.release_artifact(0x1234)  # not registered: nothing to do


def test_fake_tensors_and_tracing(ops):
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.proxy_tensor import make_fx

    with FakeTensorMode():
        x = torch.empty(8, 16, dtype=torch.bfloat16, device="cuda")
        counter = torch.zeros((), dtype=torch.long, device="cuda")
        out = ops.call(x, LOSS, 3, None, [])
        assert out.shape == () and out.dtype == torch.float32 and out.device.type == "cuda"
        assert ops.call(x, LOSS, 3).shape == ()  # the registered shape
        loss, pack, dx_buffer = ops.phase_forward(x, PHASED, 0, counter)
        # ws3 in the pack (1000 bytes, 256-byte granules); ws4 at 64 bytes into dL/dx's
        # allocation of max(256, 64 + 512) bytes.
        assert loss.shape == () and pack.shape == (1024,) and dx_buffer.shape == (576,)
        dx = ops.phase_backward(torch.ones(()), pack, dx_buffer, PHASED, [8, 16], torch.bfloat16)
        assert dx.shape == (8, 16) and dx.dtype == torch.bfloat16
        loss, dx = ops.step_run(x, STEP, 3, None, torch.ones((), device="cuda"))
        assert dx.shape == (8, 16) and dx.dtype == torch.float32

    def f(x, counter):
        return ops.call.default(x, LOSS, 3) + ops.step_phased.default(x, PHASED, 0, counter)

    graph = make_fx(f, tracing_mode="fake")(torch.empty(8, 16, dtype=torch.bfloat16),
                                            torch.zeros((), dtype=torch.long))
    assert "torch.ops.sigreg.call.default" in graph.code
    assert "torch.ops.sigreg.phase_forward.default" in graph.code
    traced = torch.compile(lambda x: ops.call.default(x, LOSS, 3, None, []) * 2,
                           backend="eager", fullgraph=True)
    y = traced(torch.empty(8, 16, dtype=torch.bfloat16, device="meta"))
    assert y.shape == () and y.device.type == "meta"


def test_training_steps_have_their_autograd_in_cpp(ops):
    # On meta tensors the ops run their meta kernels: the C++ nodes' logic without a GPU.
    x = torch.empty(8, 16, dtype=torch.bfloat16, device="meta", requires_grad=True)
    counter = torch.zeros((), dtype=torch.long, device="meta")
    loss = ops.step_phased.default(x, PHASED, 0, counter)
    assert loss.shape == () and type(loss.grad_fn).__name__ == "CppFunction"
    loss.backward()
    assert x.grad.shape == (8, 16) and x.grad.dtype == torch.bfloat16
    with pytest.raises(RuntimeError, match="backward ran twice"):
        loss.backward()
    x.grad = None
    loss = ops.step.default(x, STEP, 3, None, torch.ones((), device="meta"))
    loss.backward(retain_graph=True)
    assert x.grad.shape == (8, 16) and x.grad.dtype == torch.bfloat16  # g * dL/dx in x's dtype
    # A backward that records a graph: a second order raises, as once_differentiable does.
    w = torch.ones((), device="meta", requires_grad=True)
    for make in (lambda: ops.step_phased.default(x, PHASED, 0, counter),
                 lambda: ops.step.default(x, STEP, 3, None, torch.ones((), device="meta"))):
        (dx,) = torch.autograd.grad(make() * w, x, create_graph=True)
        with pytest.raises(RuntimeError, match="differentiate twice"):
            dx.sum().backward()
    # No gradient needed: no node, the forward alone.
    with torch.no_grad():
        assert ops.step_phased.default(x, PHASED, 0, counter).grad_fn is None
    out = ops.call.default(x, LOSS, 3, None, [])
    assert out.grad_fn is None and not out.requires_grad


def test_capi_function_and_the_module_route_take_the_ops(ops, monkeypatch):
    # A CapiFunction as __init__ leaves it, registered unowned with the ops; meta tensors run
    # the op's meta kernel, CPU ones are refused by the op and then by sigreg.capi's checks,
    # with sigreg.capi's message.
    f = capi.CapiFunction.__new__(capi.CapiFunction)
    f._torch, f.artifact_dir, f.info = torch, str(RAGGED), capi.describe(RAGGED)
    f.problem, f._lib, f._bound, f._seed = f.info.problem, capi.load_library(), {}, None
    f._h, f.device_index = ctypes.c_void_p(0x5190000), 0
    f._oph = _ops.register(f, owned=False)
    try:
        assert f._fast.op is _ops.op("call") and f._fast.handle == 0x5190000
        out = f(torch.empty((3, 37, 129), dtype=torch.bfloat16, device="meta"), seed=5)
        assert out.shape == () and out.device.type == "meta"
        with pytest.raises(ValueError, match="'x' must be a CUDA tensor, it is on cpu"):
            f(torch.zeros((3, 37, 129), dtype=torch.bfloat16), seed=5)
        with pytest.raises(ValueError, match="seed must be an int64"):
            f(torch.zeros((3, 37, 129), dtype=torch.bfloat16), seed=True)
        # The runtime's failures come back as the ctypes path's CapiError.
        err = _ops.runtime_error(RuntimeError("sigreg_aot_call: the runtime's message"),
                                 capi.CapiError)
        assert isinstance(err, capi.CapiError) and str(err) == "call: the runtime's message"
        assert _ops.runtime_error(ValueError("sigreg::call: 'x' ..."), capi.CapiError) is None
    finally:
        torch.ops.sigreg.release_artifact(0x5190000)
    # sigreg.torch's route for a phased step: the op, with its C++ node.
    from sigreg import torch as st

    class Step:
        phased, _step_ops = True, (_ops.op("step_phased"), PHASED, False)

    x = torch.empty(8, 16, dtype=torch.bfloat16, device="meta", requires_grad=True)
    loss = st._run_whole((Step(), None, None, True), x,
                         torch.zeros((), dtype=torch.long, device="meta"))
    assert type(loss.grad_fn).__name__ == "CppFunction"
    loss.backward()
    assert x.grad.shape == (8, 16)


def test_switch_and_import_order():
    # SIGREG_NO_TORCH_OPS=1: ctypes only; without it, sigreg.torch's Python ops (a FRAGMENT of
    # the same namespace) register after the library's TORCH_LIBRARY(sigreg).
    if capi.library_path() is None or not (Path(capi.library_path()).parent
                                           / _ops.LIBRARY_NAME).is_file():
        pytest.skip("libsigreg_torch_ops.so not built")
    code = ("import sys, torch; from sigreg import _ops; on = _ops.load(); "
            "import sigreg.torch; print(on, hasattr(torch.ops.sigreg, 'ecf_compiled'), "
            "hasattr(torch.ops.sigreg, 'step_phased'))")
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    env.pop("SIGREG_NO_TORCH_OPS", None)
    # The default: the ops path.
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.split() == ["True", "True", "True"], out.stderr
    env["SIGREG_NO_TORCH_OPS"] = "1"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.split() == ["False", "True", "False"], out.stderr
