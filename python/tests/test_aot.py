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
    f = aot.AotFunction(art, driver=aot.CudaDriver(cu))
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
