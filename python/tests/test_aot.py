"""CPU tests of sigreg.aot: manifest parsing, kernel-argument packing, the step loop.

The fixtures under data/aot/ are real artifacts made by
``build/bin/sigreg-run data/aot/<name>/source.mlir --target=cuda --compile-only
--pipeline=both --emit-artifact=data/aot/<name>`` (the ragged shape V=3, N=37, D=129,
S=77, P=9, and an explicit-projection f16 one; only manifests, plus the small PTX of the
first so that ``python -m sigreg.aot`` can smoke-test on a GPU without a build).
No torch, triton or CUDA needed.
"""

import ctypes
import json
import struct
from pathlib import Path

import pytest

from sigreg import aot

DATA = Path(__file__).resolve().parent / "data" / "aot"
RAGGED = DATA / "ragged-bf16-clamp"
EXPLICIT = DATA / "ragged-f16-explicit-sum"


# ---------------------------------------------------------------------------
# Parsing the real artifacts
# ---------------------------------------------------------------------------

def test_parse_fused_seed_artifact():
    m = aot.load_manifest(str(RAGGED / "fused"))
    assert m.path == str(RAGGED / "fused")
    assert m.ptx == "sigreg.ptx" and m.pipeline == "fused" and m.chip == "sm_90"
    p = m.problem
    assert (p.V, p.N, p.D, p.S, p.P) == (3, 37, 129, 77, 9)
    assert p.dtype == "bf16" and p.views and p.projection == "seed"
    assert p.clip == "clamp_min" and p.clip_value == 1.0 and p.reduction == "mean"
    assert p.x_shape() == (3, 37, 129) and p.out_shape() == ()
    x = m.buffer("x")
    assert x.role == "input" and x.bytes == 3 * 37 * 129 * 2 and x.shape == (3, 37, 129)
    assert m.output_name() == "out" and m.buffer("out").bytes == 4
    assert [s.name for s in m.scalars] == ["seed"] and m.scalar("seed").type == "i64"
    assert [s.op for s in m.steps] == ["launch"] * 3
    assert m.kernels() == ["sigreg_projection", "sigreg_fused_ecf", "sigreg_epilogue"]
    assert list(m.regions()) == ["projection_generation", "trig_reduction", "epilogue"]
    first = m.steps[0]
    assert first.args[0].kind == "scalar" and first.args[0].name == "seed"
    assert all(a.kind == "buffer" for a in first.args[1:])
    aot.check_problem_buffers(m)
    assert aot.scalar_values_for(m, 7) == {"seed": 7}
    with pytest.raises(ValueError, match="seed"):
        aot.scalar_values_for(m, None)


def test_parse_naive_artifact_has_copies_and_regions():
    m = aot.load_manifest(str(RAGGED / "naive" / "manifest.json"))
    ops = [s.op for s in m.steps]
    assert "copy" in ops and ops.count("launch") == m.num_launches() > 10
    copy_step = m.steps[ops.index("copy")]
    assert copy_step.bytes > 0 and copy_step.src != copy_step.dst
    regions = m.regions()
    assert {"projection_generation", "projection_gemm", "trig_reduction", "epilogue"} <= set(regions)
    assert sorted(i for idx in regions.values() for i in idx) == list(range(len(m.steps)))
    ws = m.buffers_with_role("workspace")
    # the naive path materializes [V, N, S, P]
    assert any(b.shape == (3, 37, 77, 9) for b in ws)
    aot.check_problem_buffers(m)


@pytest.mark.parametrize("pipeline", ["fused", "naive"])
def test_parse_explicit_projection_artifact(pipeline):
    m = aot.load_manifest(str(EXPLICIT / pipeline))
    p = m.problem
    assert p.projection == "explicit" and p.dtype == "f16" and not p.views and p.reduction == "sum"
    assert m.buffer("proj").role == "input" and m.buffer("proj").bytes == 129 * 77 * 2
    assert m.scalars == []
    aot.check_problem_buffers(m)
    assert aot.scalar_values_for(m, None) == {}


def test_fixture_ptx_present_and_small():
    for pipeline in ("fused", "naive"):
        ptx = RAGGED / pipeline / "sigreg.ptx"
        assert ptx.exists() and ptx.stat().st_size < 100_000
        text = ptx.read_text()
        for k in aot.load_manifest(str(RAGGED / pipeline)).kernels():
            assert f".entry {k}" in text


# ---------------------------------------------------------------------------
# Parsing errors
# ---------------------------------------------------------------------------

def _base():
    return json.loads((RAGGED / "fused" / "manifest.json").read_text())


@pytest.mark.parametrize("mutate, message", [
    (lambda o: o.update(format="sigreg-aot-v0"), "format"),
    (lambda o: o.pop("ptx"), "missing key 'ptx'"),
    (lambda o: o["problem"].update(Q=1), "problem: unknown key 'Q'"),
    (lambda o: o["problem"].update(dtype="f64"), "problem.dtype"),
    (lambda o: o["buffers"][0].update(colour="red"), "buffers[0]: unknown key 'colour'"),
    (lambda o: o["buffers"][1].update(role="scratch"), "buffers[1].role"),
    (lambda o: o["buffers"][0].update(zero_init=True), "buffers[0].zero_init: only a workspace"),
    (lambda o: o["buffers"][2].update(zero_init=1), "buffers[2].zero_init: expected a bool"),
    (lambda o: o["scalars"][0].update(type="u8"), "scalars[0].type"),
    (lambda o: o["steps"][1]["args"][1].update(buffer="ws9"), "steps[1].args[1]: unknown buffer 'ws9'"),
    (lambda o: o["steps"][0]["args"][0].update(scalar="sead"), "steps[0].args[0]: unknown scalar 'sead'"),
    (lambda o: o["steps"][0].update(grid=[1, 2]), "steps[0].grid"),
    (lambda o: o["steps"][0].update(block=[0, 1, 1]), "steps[0].block[0]"),
    (lambda o: o["steps"][0].update(op="jump"), "steps[0].op"),
    (lambda o: o["steps"][0].update(kernal="x"), "steps[0]: unknown key 'kernal'"),
    (lambda o: o["steps"].append({"op": "memset32", "buffer": "out", "count": 2, "value": 0}), "past the end"),
    (lambda o: o["steps"].append({"op": "memset8", "buffer": "out", "count": 1, "value": 256}), "not a byte"),
    (lambda o: o["steps"].append({"op": "copy", "src": "ws2", "dst": "ws3", "bytes": 10 ** 6}), "past the end"),
    (lambda o: o["steps"][2]["args"].append({"i32": 1, "f32": 2.0}), "exactly one"),
    (lambda o: o["steps"][2]["args"].append({"i32": 2 ** 40}), "does not fit i32"),
])
def test_parse_errors_name_the_key(mutate, message):
    o = _base()
    mutate(o)
    with pytest.raises(aot.ManifestError, match=None) as info:
        aot.parse_manifest(o)
    assert message in str(info.value)


def test_zero_init_workspace_parses():
    o = _base()
    o["buffers"][2]["zero_init"] = True
    m = aot.parse_manifest(o)
    bufs = {b.name: b for b in m.buffers_with_role("workspace")}
    assert bufs[o["buffers"][2]["name"]].zero_init
    assert sum(b.zero_init for b in bufs.values()) == 1


def test_unknown_top_level_keys_are_ignored():
    o = _base()
    o["built_by"] = "someone"
    aot.parse_manifest(o)


def test_problem_buffer_conventions():
    o = _base()
    o["buffers"][0]["bytes"] += 2
    with pytest.raises(aot.ManifestError, match="buffer 'x'"):
        aot.check_problem_buffers(aot.parse_manifest(o))
    o = _base()
    o["scalars"].append({"name": "gamma", "type": "f32"})
    with pytest.raises(aot.ManifestError, match="unknown scalar 'gamma'"):
        aot.check_problem_buffers(aot.parse_manifest(o))
    o = _base()
    del o["problem"]
    with pytest.raises(aot.ManifestError, match="no 'problem'"):
        aot.check_problem_buffers(aot.parse_manifest(o))


def test_load_manifest_reports_json_syntax(tmp_path):
    (tmp_path / "manifest.json").write_text('{"format": "sigreg-aot-v1",\n "ptx": }')
    with pytest.raises(aot.ManifestError, match="line 2"):
        aot.load_manifest(str(tmp_path))


# ---------------------------------------------------------------------------
# Argument packing and the step loop (fake driver)
# ---------------------------------------------------------------------------

SYNTHETIC = {
    "format": "sigreg-aot-v1",
    "ptx": "k.ptx",
    "problem": {"V": 2, "N": 5, "D": 3, "S": 4, "P": 3, "dtype": "f32", "views": True, "reduction": "none"},
    "buffers": [
        {"name": "x", "role": "input", "bytes": 2 * 5 * 3 * 4},
        {"name": "out", "role": "output", "bytes": 2 * 4 * 4},
        {"name": "ws0", "role": "workspace", "bytes": 64},
    ],
    "scalars": [{"name": "seed", "type": "i32"}, {"name": "N", "type": "i64"}],
    "steps": [
        {"op": "memset32", "buffer": "ws0", "offset": 8, "count": 4, "value": 4294967295, "region": "init"},
        {"op": "memset8", "buffer": "out", "count": 3, "value": 255},
        {"op": "launch", "kernel": "k1", "grid": [3, 2, 1], "block": [128, 1, 1], "shared_bytes": 1024,
         "region": "trig_reduction",
         "args": [{"buffer": "x"}, {"buffer": "ws0", "offset": 16}, {"scalar": "seed"}, {"scalar": "N"},
                  {"i32": -5}, {"i64": -(2 ** 40)}, {"f32": 0.1}, {"f64": 2.5}, {"i32": 4294967295}]},
        {"op": "copy", "src": "ws0", "src_offset": 4, "dst": "out", "dst_offset": 8, "bytes": 12},
        {"op": "launch", "kernel": "k2", "grid": [1, 1, 1], "block": [32, 1, 1], "args": []},
        {"op": "launch", "kernel": "k1", "grid": [1, 1, 1], "block": [1, 1, 1], "args": [{"buffer": "out"}]},
    ],
}


class FakeDriver:
    """Records the calls Program makes, reading kernelParams the way the driver does.

    ``launch_sizes``: for each launch in order, the byte size of each parameter.
    """

    def __init__(self, launch_sizes):
        self.calls = []
        self.launch_sizes = list(launch_sizes)

    def launch(self, func, grid, block, shared_bytes, stream, params_address):
        sizes = self.launch_sizes.pop(0)
        values = []
        if sizes:
            ptrs = (ctypes.c_void_p * len(sizes)).from_address(params_address)
            values = [ctypes.string_at(ptrs[i], n) for i, n in enumerate(sizes)]
        else:
            assert params_address == 0
        self.calls.append(("launch", func, tuple(grid), tuple(block), shared_bytes, stream, values))

    def memcpy_dtod(self, dst, src, nbytes, stream):
        self.calls.append(("copy", dst, src, nbytes, stream))

    def memset_d32(self, ptr, value, count, stream):
        self.calls.append(("memset32", ptr, value, count, stream))

    def memset_d8(self, ptr, value, count, stream):
        self.calls.append(("memset8", ptr, value, count, stream))


SYNTHETIC_SIZES = [[8, 8, 4, 8, 4, 8, 4, 8, 4], [], [8]]


def test_launch_args_slot_types_and_bytes():
    m = aot.parse_manifest(SYNTHETIC)
    step = m.steps[2]
    la = aot.LaunchArgs(step, {"seed": "i32", "N": "i64"})
    assert la.kinds == ["ptr", "ptr", "i32", "i64", "i32", "i64", "f32", "f64", "i32"]
    expected_types = [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_int32, ctypes.c_int64, ctypes.c_int32,
                      ctypes.c_int64, ctypes.c_float, ctypes.c_double, ctypes.c_int32]
    assert [type(s) for s in la.slots] == expected_types
    # the void* array holds the addresses of the slots
    assert [la.params[i] for i in range(len(la.slots))] == [ctypes.addressof(s) for s in la.slots]
    assert la.address == ctypes.addressof(la.params)
    la.update({"x": 0x7F0000001000, "ws0": 0x7F0000002000, "out": 1}, {"seed": 0xDEADBEEF, "N": 5})
    raw = la.raw_bytes()
    assert raw[0] == struct.pack("<Q", 0x7F0000001000)
    assert raw[1] == struct.pack("<Q", 0x7F0000002000 + 16)
    assert raw[2] == struct.pack("<I", 0xDEADBEEF)  # a u32 seed keeps its bits
    assert raw[3] == struct.pack("<q", 5)
    assert raw[4] == struct.pack("<i", -5)
    assert raw[5] == struct.pack("<q", -(2 ** 40))
    assert raw[6] == struct.pack("<f", 0.1)
    assert raw[7] == struct.pack("<d", 2.5)
    assert raw[8] == struct.pack("<I", 0xFFFFFFFF)
    # updating again rewrites in place (same slots, same array)
    addr = la.address
    la.update({"x": 8, "ws0": 16, "out": 1}, {"seed": -1, "N": 2 ** 63 + 1})
    assert la.address == addr
    raw = la.raw_bytes()
    assert raw[0] == struct.pack("<Q", 8) and raw[1] == struct.pack("<Q", 32)
    assert raw[2] == struct.pack("<i", -1)
    assert raw[3] == struct.pack("<Q", 2 ** 63 + 1)  # u64 bits of an i64 scalar


def test_launch_args_without_arguments():
    m = aot.parse_manifest(SYNTHETIC)
    la = aot.LaunchArgs(m.steps[4], {})
    assert la.slots == [] and la.address == 0


def test_program_enqueues_steps_in_order():
    m = aot.parse_manifest(SYNTHETIC)
    aot.check_problem_buffers(m)
    prog = aot.Program(m, {"k1": "F1", "k2": "F2"})
    drv = FakeDriver(SYNTHETIC_SIZES)
    ptrs = {"x": 0x1000, "out": 0x2000, "ws0": 0x3000}
    scalars = aot.scalar_values_for(m, seed=2 ** 32 + 3)  # i32 seed: low 32 bits
    assert scalars == {"seed": 3, "N": 5}
    prog.enqueue(drv, 77, ptrs, scalars)
    c = drv.calls
    assert c[0] == ("memset32", 0x3000 + 8, 0xFFFFFFFF, 4, 77)
    assert c[1] == ("memset8", 0x2000, 255, 3, 77)
    assert c[2][:6] == ("launch", "F1", (3, 2, 1), (128, 1, 1), 1024, 77)
    vals = c[2][6]
    assert vals[0] == struct.pack("<Q", 0x1000) and vals[1] == struct.pack("<Q", 0x3010)
    assert vals[2] == struct.pack("<i", 3) and vals[3] == struct.pack("<q", 5)
    assert c[3] == ("copy", 0x2000 + 8, 0x3000 + 4, 12, 77)
    assert c[4] == ("launch", "F2", (1, 1, 1), (32, 1, 1), 0, 77, [])
    assert c[5][1] == "F1" and c[5][6] == [struct.pack("<Q", 0x2000)]
    assert len(c) == 6
    # rebinding x changes only what the launch reads
    drv.calls.clear()
    drv.launch_sizes = list(SYNTHETIC_SIZES)
    prog.enqueue(drv, 78, dict(ptrs, x=0x9000), scalars)
    assert drv.calls[2][6][0] == struct.pack("<Q", 0x9000)


def test_program_real_fixture_with_fake_driver():
    m = aot.load_manifest(str(RAGGED / "fused"))
    funcs = {k: f"F:{k}" for k in m.kernels()}
    prog = aot.Program(m, funcs)
    drv = FakeDriver([[8] * len(s.args) for s in m.steps if s.op == "launch"])
    ptrs = {b.name: 0x10000 * (i + 1) for i, b in enumerate(m.buffers)}
    prog.enqueue(drv, 0, ptrs, aot.scalar_values_for(m, 1234))
    assert [c[1] for c in drv.calls] == [funcs[k] for k in m.kernels()]
    first = drv.calls[0][6]
    assert first[0] == struct.pack("<q", 1234)  # seed, i64
    assert first[1] == struct.pack("<Q", ptrs["ws0"])


def test_program_reports_failing_step():
    m = aot.parse_manifest(SYNTHETIC)
    prog = aot.Program(m, {"k1": "F1", "k2": "F2"})

    class Failing(FakeDriver):
        def memcpy_dtod(self, *a):
            raise aot.CudaError("cuMemcpyDtoDAsync failed: CUDA_ERROR_INVALID_VALUE (1)")

    drv = Failing(SYNTHETIC_SIZES)
    with pytest.raises(aot.CudaError, match=r"step 3 \(copy 12 B"):
        prog.enqueue(drv, 0, {"x": 1, "out": 2, "ws0": 3}, {"seed": 1, "N": 5})


def test_program_needs_every_kernel():
    m = aot.parse_manifest(SYNTHETIC)
    with pytest.raises(aot.ManifestError, match="k2"):
        aot.Program(m, {"k1": "F1"})


def test_cuda_driver_checks_results_with_names():
    """CudaDriver against a fake cuda-python module: CUresult checking and call shapes."""

    class R(int):
        @property
        def name(self):
            return {0: "CUDA_SUCCESS", 1: "CUDA_ERROR_INVALID_VALUE"}[int(self)]

    class FakeCu:
        class CUstream(int):
            pass

        class CUdeviceptr(int):
            pass

        def __init__(self):
            self.log = []

        def cuInit(self, flags):
            return (R(0),)

        def cuGetErrorName(self, err):
            return (R(0), b"CUDA_ERROR_INVALID_VALUE" if int(err) == 1 else b"?")

        def cuLaunchKernel(self, *a):
            self.log.append(("launch", a))
            return (R(0),)

        def cuMemsetD32Async(self, *a):
            self.log.append(("memset32", a))
            return (R(1),)

        def cuDeviceGet(self, i):
            return (R(0), i)

        def cuDevicePrimaryCtxRetain(self, dev):
            return (R(0), 1234)

        def cuCtxGetCurrent(self):
            return (R(0), 0)

        def cuCtxSetCurrent(self, ctx):
            self.log.append(("set", ctx))
            return (R(0),)

    cu = FakeCu()
    drv = aot.CudaDriver(cu)
    drv.launch("F", (2, 1, 1), (64, 1, 1), 0, 5, 0xABC)
    name, a = cu.log[-1]
    assert a[:8] == ("F", 2, 1, 1, 64, 1, 1, 0) and int(a[8]) == 5 and a[9] == 0xABC and a[10] == 0
    with pytest.raises(aot.CudaError, match="cuMemsetD32Async failed: CUDA_ERROR_INVALID_VALUE"):
        drv.memset_d32(0x100, 0xFFFFFFFF, 4, 0)
    assert drv.ensure_context(0) == 1234 and cu.log[-1] == ("set", 1234)


# ---------------------------------------------------------------------------
# AotFunction end to end against a fake torch and a fake cuda-python module
# ---------------------------------------------------------------------------

class _FakeDevice:
    def __init__(self, kind, index=None):
        if isinstance(kind, _FakeDevice):
            kind, index = kind.type, kind.index
        self.type, self.index = kind, index

    def __eq__(self, other):
        return isinstance(other, _FakeDevice) and (self.type, self.index) == (other.type, other.index)

    def __repr__(self):
        return f"{self.type}:{self.index}"


def _make_fake_torch():
    import types

    torch = types.ModuleType("torch")
    torch.bfloat16, torch.float16, torch.float32, torch.uint8 = "bf16", "f16", "f32", "u8"
    itemsize = {"bf16": 2, "f16": 2, "f32": 4, "u8": 1}
    next_ptr = [0x7000_0000_0000]

    class Tensor:
        def __init__(self, shape, dtype, device, contiguous=True):
            self.shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
            self.dtype, self.device, self._contig = dtype, _FakeDevice(device), contiguous
            n = self.numel() * itemsize[dtype]
            self._ptr = next_ptr[0]
            next_ptr[0] += (n + 511) // 512 * 512 + 512

        def numel(self):
            n = 1
            for d in self.shape:
                n *= d
            return n

        def is_contiguous(self):
            return self._contig

        def data_ptr(self):
            return self._ptr

    torch.Tensor = Tensor
    torch.device = lambda kind, index=None: _FakeDevice(kind, index if index is not None else
                                                        (None if isinstance(kind, _FakeDevice) else 0))
    torch.empty = lambda shape, dtype=None, device=None: Tensor(shape, dtype or "f32", device)
    torch.zeros = lambda shape, dtype=None, device=None: Tensor(shape, dtype or "f32", device)

    class _Ctx:
        def __init__(self, *a):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

    stream = types.SimpleNamespace(cuda_stream=0xBEEF)
    torch.cuda = types.SimpleNamespace(
        is_available=lambda: True, init=lambda: None, current_device=lambda: 0, device=_Ctx,
        synchronize=lambda *a: None, current_stream=lambda *a: stream)
    return torch


class _FakeCuModule:
    """Just enough of cuda.bindings.driver for AotFunction."""

    class CUstream(int):
        pass

    class CUdeviceptr(int):
        pass

    class CUfunction_attribute:
        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8

    class CUdevice_attribute:
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97

    def __init__(self, fail_load=False):
        self.log = []
        self.fail_load = fail_load

    def cuInit(self, flags):
        return (0,)

    def cuGetErrorName(self, err):
        return (0, b"CUDA_ERROR_INVALID_PTX" if err == 218 else b"CUDA_ERROR_UNKNOWN")

    def cuDeviceGet(self, i):
        return (0, i)

    def cuDevicePrimaryCtxRetain(self, dev):
        return (0, 0xC0)

    def cuCtxGetCurrent(self):
        return (0, 0xC0)

    def cuCtxSetCurrent(self, ctx):
        self.log.append(("set", ctx))
        return (0,)

    def cuModuleLoadData(self, addr):
        text = ctypes.string_at(addr)
        self.log.append(("load", len(text)))
        return (218, None) if self.fail_load else (0, "MODULE")

    def cuModuleGetFunction(self, module, name):
        assert module == "MODULE" and isinstance(name, bytes)
        return (0, "F:" + name.decode())

    def cuModuleUnload(self, module):
        return (0,)

    def cuLaunchKernel(self, f, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        nargs = self.nargs[f]
        vals = []
        if nargs:
            arr = (ctypes.c_void_p * nargs).from_address(params)
            vals = [struct.unpack("<Q", ctypes.string_at(arr[i], 8))[0] for i in range(nargs)]
        self.log.append(("launch", f, (gx, gy, gz), (bx, by, bz), shared, int(stream), vals))
        return (0,)

    def cuMemcpyDtoDAsync(self, dst, src, n, stream):
        self.log.append(("copy", int(dst), int(src), n, int(stream)))
        return (0,)

    def cuMemsetD32Async(self, ptr, v, n, stream):
        self.log.append(("memset32", int(ptr), v, n, int(stream)))
        return (0,)

    def cuMemsetD8Async(self, ptr, v, n, stream):
        self.log.append(("memset8", int(ptr), v, n, int(stream)))
        return (0,)


def test_aot_function_with_fake_torch_and_driver(monkeypatch):
    import sys

    fake_torch = _make_fake_torch()
    monkeypatch.setitem(sys.modules, "torch", fake_torch)
    cu = _FakeCuModule()
    art = str(RAGGED / "fused")
    m = aot.load_manifest(art)
    # every argument of this artifact is 8 bytes (pointers and the i64 seed)
    cu.nargs = {f"F:{s.kernel}": len(s.args) for s in m.steps if s.op == "launch"}
    zeroed = []
    # workspaces are uint8 tensors (torch.zeros(1) without a dtype initialises the context)
    fake_torch.zeros = lambda shape, dtype=None, device=None: (dtype is not None and zeroed.append(shape)) or \
        fake_torch.Tensor(shape, dtype or "f32", device)
    f = aot.AotFunction(art, driver=aot.CudaDriver(cu))
    assert zeroed == []  # no zero_init workspace in this artifact: torch.empty only
    assert f.num_launches == 3 and "fused" in repr(f)
    assert [r["region"] for r in f.regions()] == ["projection_generation", "trig_reduction", "epilogue"]
    assert ("load", (RAGGED / "fused" / "sigreg.ptx").stat().st_size) in cu.log  # NUL-terminated PTX
    x = fake_torch.empty((3, 37, 129), dtype="bf16", device=_FakeDevice("cuda", 0))
    out = f(x, seed=1234)
    assert out.shape == () and out.dtype == "f32"
    launches = [c for c in cu.log if c[0] == "launch"]
    assert [c[1] for c in launches] == [f"F:{k}" for k in m.kernels()]
    assert all(c[5] == 0xBEEF for c in launches)  # torch's current stream
    assert launches[0][6][0] == 1234  # seed
    assert launches[1][6][0] == x.data_ptr()  # fused_ecf reads x
    assert launches[2][6][-1] == out.data_ptr()  # epilogue writes out
    ws0 = launches[0][6][1]
    assert launches[1][6][1] == ws0  # the workspace persists between steps
    # errors: wrong dtype, shape, missing seed, proj on a seed artifact
    with pytest.raises(TypeError, match="bf16"):
        f(fake_torch.empty((3, 37, 129), dtype="f32", device=_FakeDevice("cuda", 0)), seed=1)
    with pytest.raises(ValueError, match="shape"):
        f(fake_torch.empty((3, 37, 128), dtype="bf16", device=_FakeDevice("cuda", 0)), seed=1)
    with pytest.raises(ValueError, match="seed"):
        f(x)
    with pytest.raises(ValueError, match="proj"):
        f(x, seed=1, proj=x)
    with pytest.raises(ValueError, match="contiguous"):
        f(fake_torch.Tensor((3, 37, 129), "bf16", _FakeDevice("cuda", 0), contiguous=False), seed=1)


def test_aot_function_naive_copies(monkeypatch):
    import sys

    fake_torch = _make_fake_torch()
    monkeypatch.setitem(sys.modules, "torch", fake_torch)
    cu = _FakeCuModule()
    art = str(RAGGED / "naive")
    m = aot.load_manifest(art)
    cu.nargs = {f"F:{s.kernel}": len(s.args) for s in m.steps if s.op == "launch"}
    f = aot.AotFunction(art, driver=aot.CudaDriver(cu))
    x = fake_torch.empty((3, 37, 129), dtype="bf16", device=_FakeDevice("cuda", 0))
    out = fake_torch.empty((), dtype="f32", device=_FakeDevice("cuda", 0))
    assert f(x, seed=5, out=out) is out
    ops = [c[0] for c in cu.log if c[0] in ("launch", "copy", "memset32", "memset8")]
    assert ops == ["launch" if s.op == "launch" else s.op for s in m.steps]
    copy_call = [c for c in cu.log if c[0] == "copy"][0]
    assert copy_call[3] == [s for s in m.steps if s.op == "copy"][0].bytes and copy_call[4] == 0xBEEF


def test_aot_function_reports_jit_failure(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "torch", _make_fake_torch())
    monkeypatch.setattr(aot, "_jit_error_log", lambda ptx: "ptxas fatal: something")
    cu = _FakeCuModule(fail_load=True)
    with pytest.raises(aot.CudaError, match="CUDA_ERROR_INVALID_PTX.*\n.*JIT log:\nptxas fatal"):
        aot.AotFunction(str(RAGGED / "fused"), driver=aot.CudaDriver(cu))


# ---------------------------------------------------------------------------
# tensor_map arguments (CUtensorMap by value)
# ---------------------------------------------------------------------------

def _tma_manifest():
    # x is [1, 8192, 4096] bf16; the map tiles it by [1, 128, 64] (innermost first below).
    return {
        "format": "sigreg-aot-v1",
        "ptx": "k.ptx",
        "buffers": [
            {"name": "x", "role": "input", "bytes": 8192 * 4096 * 2, "dtype": "bf16", "shape": [1, 8192, 4096]},
            {"name": "out", "role": "output", "bytes": 4},
        ],
        "steps": [
            {"op": "launch", "kernel": "tma", "grid": [64, 1, 1], "block": [128, 1, 1], "shared_bytes": 98304,
             "args": [{"tensor_map": {"buffer": "x", "offset": 0, "dtype": "bf16", "dims": [4096, 8192, 1],
                                      "strides": [8192, 67108864], "box": [64, 128, 1], "swizzle": "128b",
                                      "l2_promotion": "256b", "oob_fill": "zero", "interleave": "none"}},
                      {"buffer": "out"}, {"i32": 7}]},
        ],
    }


def _tm(o):
    return o["steps"][0]["args"][0]["tensor_map"]


def test_parse_tensor_map():
    m = aot.parse_manifest(_tma_manifest())
    s = m.steps[0]
    assert s.shared_bytes == 98304
    a = s.args[0]
    assert a.kind == "tensor_map" and a.name == "x" and a.offset == 0
    t = a.tensor_map
    assert (t.dtype, t.dims, t.strides, t.box) == ("bf16", (4096, 8192, 1), (8192, 67108864), (64, 128, 1))
    assert (t.swizzle, t.l2_promotion, t.oob_fill, t.interleave) == ("128b", "256b", "zero", "none")
    # defaults
    o = _tma_manifest()
    for k in ("offset", "swizzle", "l2_promotion", "oob_fill", "interleave"):
        del _tm(o)[k]
    _tm(o)["box"] = [8, 128, 1]
    t = aot.parse_manifest(o).steps[0].args[0].tensor_map
    assert (t.swizzle, t.l2_promotion, t.oob_fill, t.interleave) == ("none", "none", "zero", "none")


TM = "steps[0].args[0].tensor_map"


@pytest.mark.parametrize("mutate, message", [
    (lambda t: t.update(mode=1), f"{TM}: unknown key 'mode'"),
    (lambda t: t.pop("buffer"), f"{TM}: missing key 'buffer'"),
    (lambda t: t.update(buffer="y"), f"{TM}.buffer: unknown buffer 'y'"),
    (lambda t: t.update(dtype="f64"), f"{TM}.dtype: invalid value 'f64'"),
    (lambda t: t.update(dims=[], strides=[], box=[]), f"{TM}.dims: rank 0 out of range [1, 5]"),
    (lambda t: t.update(dims=[8, 1, 1, 1, 1, 1], strides=[16] * 5, box=[8, 1, 1, 1, 1, 1]),
     f"{TM}.dims: rank 6 out of range [1, 5]"),
    (lambda t: t.update(dims=[4096, 0, 1]), f"{TM}.dims[1]: value 0 out of range"),
    (lambda t: t.update(dims=[4096, 8192, 2 ** 32 + 1]), f"{TM}.dims[2]: value 4294967297 out of range"),
    (lambda t: t.update(strides=[8192]), f"{TM}.strides: expected 2 strides"),
    (lambda t: t.update(strides=[8200, 67108864]), f"{TM}.strides[0]: stride 8200 is not a multiple of 16"),
    (lambda t: t.update(strides=[4096, 67108864]), f"{TM}.strides[0]: stride 4096 is smaller than the 8192 bytes"),
    (lambda t: t.update(strides=[8192, 2 ** 40]), f"{TM}.strides[1]: value 1099511627776 out of range"),
    (lambda t: t.update(box=[64, 128]), f"{TM}.box: expected 3 box sizes"),
    (lambda t: t.update(box=[64, 0, 1]), f"{TM}.box[1]: value 0 out of range [1, 256]"),
    (lambda t: t.update(box=[64, 257, 1]), f"{TM}.box[1]: value 257 out of range [1, 256]"),
    (lambda t: t.update(box=[4, 128, 1]), f"{TM}.box[0]: inner box of 8 bytes is not a multiple of 16"),
    (lambda t: t.update(box=[128, 128, 1]), f"{TM}.box[0]: inner box of 256 bytes exceeds the 128-byte swizzle span"),
    (lambda t: t.update(swizzle="64b"), f"{TM}.box[0]: inner box of 128 bytes exceeds the 64-byte swizzle span"),
    (lambda t: t.update(swizzle="256b"), f"{TM}.swizzle: invalid value '256b'"),
    (lambda t: t.update(l2_promotion="512b"), f"{TM}.l2_promotion: invalid value '512b'"),
    (lambda t: t.update(oob_fill="one"), f"{TM}.oob_fill: invalid value 'one'"),
    (lambda t: t.update(oob_fill=0), f"{TM}.oob_fill: expected a string"),
    (lambda t: t.update(interleave="8b"), f"{TM}.interleave: invalid value '8b'"),
    (lambda t: t.update(interleave="32b"), f"{TM}.swizzle: 32b interleave requires 32b swizzle"),
    (lambda t: t.update(dtype="i32", dims=[2048, 8192, 1], box=[32, 128, 1], oob_fill="nan"),
     f"{TM}.oob_fill: nan fill needs a floating-point dtype"),
    (lambda t: t.update(offset=8), f"{TM}.offset: offset 8 is not a multiple of 16"),
    (lambda t: t.update(dims=[4096, 8192, 2]),
     f"{TM}.dims: the tensor (134217728 bytes from offset 0) exceeds buffer 'x' of 67108864 bytes"),
    (lambda t: t.update(offset=16), f"{TM}.dims: the tensor (67108864 bytes from offset 16) exceeds buffer 'x'"),
])
def test_tensor_map_parse_errors_name_the_key(mutate, message):
    o = _tma_manifest()
    mutate(_tm(o))
    with pytest.raises(aot.ManifestError) as info:
        aot.parse_manifest(o)
    assert message in str(info.value)


def test_tensor_map_interleave_needs_rank_3_and_two_kinds_rejected():
    o = _tma_manifest()
    _tm(o).update(dims=[4096, 8192], strides=[8192], box=[8, 128], interleave="16b")
    with pytest.raises(aot.ManifestError, match=r"tensor_map.interleave: interleaved layouts need rank >= 3"):
        aot.parse_manifest(o)
    o = _tma_manifest()
    o["steps"][0]["args"][0]["i32"] = 1
    with pytest.raises(aot.ManifestError, match=r"steps\[0\].args\[0\]: expected exactly one of"):
        aot.parse_manifest(o)


class _EncodingDriver(FakeDriver):
    """FakeDriver plus encode_tensor_map: 128 bytes that name the address and the call."""

    def __init__(self, launch_sizes):
        super().__init__(launch_sizes)
        self.encodes = []

    def encode_tensor_map(self, desc, address):
        self.encodes.append((desc, address))
        return struct.pack("<QQ", address, len(self.encodes)) + bytes(range(112))


def test_program_encodes_tensor_maps_once_per_address():
    m = aot.parse_manifest(_tma_manifest())
    prog = aot.Program(m, {"tma": "T"})
    la = prog.launch_args[0]
    assert la.kinds == ["tensor_map", "ptr", "i32"]
    slot = la.slots[0]
    assert slot.address % 64 == 0 and la.params[0] == slot.address  # kernelParams[0] -> the 128 bytes
    drv = _EncodingDriver([[128, 8, 4]] * 4)
    ptrs = {"x": 0x7F00_0000_0000, "out": 0x7F10_0000_0000}
    prog.enqueue(drv, 5, ptrs, {})
    assert len(drv.encodes) == 1
    desc, addr = drv.encodes[0]
    assert addr == ptrs["x"] and desc.box == (64, 128, 1) and desc.dims == (4096, 8192, 1)
    launch = drv.calls[-1]
    assert launch[:6] == ("launch", "T", (64, 1, 1), (128, 1, 1), 98304, 5)
    tmap, out, lit = launch[6]
    assert tmap == struct.pack("<QQ", ptrs["x"], 1) + bytes(range(112))  # all 128 bytes, by value
    assert out == struct.pack("<Q", ptrs["out"]) and lit == struct.pack("<i", 7)
    # same address: no new encode; another output address alone: still none
    prog.enqueue(drv, 5, dict(ptrs, out=0x1000), {})
    assert len(drv.encodes) == 1 and slot.encodes == 1
    # x rebound: re-encoded for the new address, and the launch passes the new map
    prog.enqueue(drv, 5, dict(ptrs, x=0x7F20_0000_0000), {})
    assert [a for _, a in drv.encodes] == [ptrs["x"], 0x7F20_0000_0000]
    assert drv.calls[-1][6][0][:16] == struct.pack("<QQ", 0x7F20_0000_0000, 2)
    # and back again: re-encoded once more
    prog.enqueue(drv, 5, ptrs, {})
    assert len(drv.encodes) == 3 and drv.calls[-1][6][0][:8] == struct.pack("<Q", ptrs["x"])


def test_program_tensor_map_errors_name_step_and_argument():
    m = aot.parse_manifest(_tma_manifest())
    prog = aot.Program(m, {"tma": "T"})
    with pytest.raises(aot.CudaError, match=r"step 0 \(launch tma.*argument 0 \(tensor map of buffer 'x'\).*"
                                           r"no encode_tensor_map"):
        prog.enqueue(FakeDriver([[128, 8, 4]]), 0, {"x": 0x1000, "out": 0x2000}, {})

    class Failing(_EncodingDriver):
        def encode_tensor_map(self, desc, address):
            raise aot.CudaError("cuTensorMapEncodeTiled failed: CUDA_ERROR_INVALID_VALUE (1)")

    prog = aot.Program(m, {"tma": "T"})
    with pytest.raises(aot.CudaError, match=r"step 0 .*argument 0 \(tensor map of buffer 'x'\): "
                                           r"cuTensorMapEncodeTiled failed"):
        prog.enqueue(Failing([[128, 8, 4]]), 0, {"x": 0x1000, "out": 0x2000}, {})
    # a failed encode is retried on the next run, not taken as done
    drv = _EncodingDriver([[128, 8, 4]])
    prog.enqueue(drv, 0, {"x": 0x1000, "out": 0x2000}, {})
    assert len(drv.encodes) == 1


def test_cuda_driver_encode_tensor_map_call():
    """CudaDriver.encode_tensor_map against a fake cuda.bindings.driver: argument order,
    enum values (cuda.h), element strides of 1, and the 128 bytes of the CUtensorMap."""
    import enum

    class FakeCu:
        class CUtensorMapDataType(enum.IntEnum):
            CU_TENSOR_MAP_DATA_TYPE_INT32 = 3
            CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6
            CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7
            CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9

        CUtensorMapInterleave = enum.IntEnum("CUtensorMapInterleave", {"NONE": 0, "B16": 1, "B32": 2})
        CUtensorMapSwizzle = enum.IntEnum("CUtensorMapSwizzle", {"NONE": 0, "B32": 1, "B64": 2, "B128": 3})
        CUtensorMapL2promotion = enum.IntEnum("CUtensorMapL2promotion", {"NONE": 0, "B64": 1, "B128": 2, "B256": 3})
        CUtensorMapFloatOOBfill = enum.IntEnum("CUtensorMapFloatOOBfill", {"NONE": 0, "NAN": 1})

        class cuuint64_t(int):
            pass

        class cuuint32_t(int):
            pass

        class CUtensorMap:
            def __init__(self, words):
                self.opaque = [FakeCu.cuuint64_t(w) for w in words]

        def __init__(self):
            self.calls = []

        def cuInit(self, flags):
            return (0,)

        def cuTensorMapEncodeTiled(self, *a):
            self.calls.append(a)
            return (0, FakeCu.CUtensorMap(range(100, 116)))

    cu = FakeCu()
    drv = aot.CudaDriver(cu)
    t = aot.parse_manifest(_tma_manifest()).steps[0].args[0].tensor_map
    data = drv.encode_tensor_map(t, 0x7F00_0000_0040)
    assert data == struct.pack("<16Q", *range(100, 116))
    (dtype, rank, addr, dims, strides, box, estr, inter, swz, l2, oob), = cu.calls
    assert isinstance(dtype, FakeCu.CUtensorMapDataType) and int(dtype) == 9  # BFLOAT16
    assert rank == 3 and addr == 0x7F00_0000_0040
    assert dims == [4096, 8192, 1] and all(isinstance(d, FakeCu.cuuint64_t) for d in dims)
    assert strides == [8192, 67108864] and box == [64, 128, 1] and estr == [1, 1, 1]
    assert all(isinstance(b, FakeCu.cuuint32_t) for b in box + estr)
    assert (int(inter), int(swz), int(l2), int(oob)) == (0, 3, 3, 0)
    assert isinstance(swz, FakeCu.CUtensorMapSwizzle)
    t.dtype, t.swizzle, t.l2_promotion, t.oob_fill = "f16", "32b", "64b", "nan"
    drv.encode_tensor_map(t, 0x10)
    a = cu.calls[-1]
    assert (int(a[0]), int(a[8]), int(a[9]), int(a[10])) == (6, 1, 1, 1)
    t.dtype = "f32"
    drv.encode_tensor_map(t, 0x10)
    assert int(cu.calls[-1][0]) == 7
    t.dtype, t.oob_fill = "i32", "zero"
    drv.encode_tensor_map(t, 0x10)
    assert int(cu.calls[-1][0]) == 3


def test_aot_function_zeroes_zero_init_workspaces_once(monkeypatch, tmp_path):
    import shutil
    import sys

    fake_torch = _make_fake_torch()
    monkeypatch.setitem(sys.modules, "torch", fake_torch)
    art = tmp_path / "fused"
    shutil.copytree(RAGGED / "fused", art)
    o = json.loads((art / "manifest.json").read_text())
    ws = [b for b in o["buffers"] if b["role"] == "workspace"]
    ws[0]["zero_init"] = True
    (art / "manifest.json").write_text(json.dumps(o))
    zeroed = []
    # workspaces are uint8 tensors (torch.zeros(1) without a dtype initialises the context)
    fake_torch.zeros = lambda shape, dtype=None, device=None: (dtype is not None and zeroed.append(shape)) or \
        fake_torch.Tensor(shape, dtype or "f32", device)
    cu = _FakeCuModule()
    m = aot.load_manifest(str(art))
    cu.nargs = {f"F:{s.kernel}": len(s.args) for s in m.steps if s.op == "launch"}
    f = aot.AotFunction(str(art), driver=aot.CudaDriver(cu))
    assert len(zeroed) == 1 and zeroed[0] >= ws[0]["bytes"]
    x = fake_torch.empty((3, 37, 129), dtype="bf16", device=_FakeDevice("cuda", 0))
    f(x, seed=1)
    f(x, seed=2)
    assert len(zeroed) == 1  # at allocation only, never per call
    assert not any(c[0].startswith("memset") for c in cu.log)
