"""sigreg.aot and sigreg.capi without a GPU: the runtime's manifest reader through the C ABI
(``sigreg_aot_describe``), CapiFunction's argument checks, and ``python -m sigreg.aot``.

The fixtures under data/aot/ are real artifacts made by
``build/bin/sigreg-run data/aot/<name>/source.mlir --target=cuda --compile-only
--pipeline=both --emit-artifact=data/aot/<name>`` (the ragged shape V=3, N=37, D=129,
S=77, P=9, and an explicit-projection f16 one; only manifests, plus the small PTX of the
first so that ``python -m sigreg.aot`` can smoke-test on a GPU without a build).
Every test needs libsigreg_aot.so (skipped when it is not built); those of the argument checks
need torch too.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sigreg import aot, capi

pytestmark = pytest.mark.skipif(capi.library_path() is None, reason="libsigreg_aot.so not built")

DATA = Path(__file__).resolve().parent / "data" / "aot"
RAGGED = DATA / "ragged-bf16-clamp"
EXPLICIT = DATA / "ragged-f16-explicit-sum"
REPO = Path(__file__).resolve().parents[2]
NO_PROBLEM = REPO / "unittests" / "Runtime" / "gpu_smoke"  # a runtime fixture without a problem


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


def _base():
    return json.loads((RAGGED / "fused" / "manifest.json").read_text())


def _write(tmp_path, manifest, name="art") -> Path:
    d = tmp_path / name
    d.mkdir()
    (d / "manifest.json").write_text(json.dumps(manifest) if not isinstance(manifest, str) else manifest)
    return d



def test_describe_reads_a_shared_workspace(tmp_path):
    # A workspace that may live inside an output's allocation (docs/AOT.md, "shares").
    o = _base()
    out = next(b["name"] for b in o["buffers"] if b["role"] == "output")
    ws = next(b for b in o["buffers"] if b["role"] == "workspace" and not b.get("zero_init"))
    ws["shares"] = {"buffer": out, "offset": 256}
    m = capi.describe(_write(tmp_path, o))
    assert [b.shares for b in m.buffers if b.name == ws["name"]] == [(out, 256)]
    assert all(b.shares is None for b in m.buffers if b.name != ws["name"])
    ws["shares"] = {"buffer": "x", "offset": 256}
    with pytest.raises(capi.CapiError, match="is not an output buffer"):
        capi.describe(_write(tmp_path, o, name="bad"))


# ---------------------------------------------------------------------------
# The real artifacts, as the runtime's reader describes them
# ---------------------------------------------------------------------------

def test_describe_fused_seed_artifact():
    m = capi.describe(RAGGED / "fused")
    assert m.path == str(RAGGED / "fused")
    assert m.format == "sigreg-aot-v1" and m.function == "sigreg"
    assert m.ptx == "sigreg.ptx" and m.pipeline == "fused" and m.chip == "sm_90"
    p = m.problem
    assert (p.V, p.N, p.D, p.S, p.P) == (3, 37, 129, 77, 9)
    assert p.dtype == "bf16" and p.views and p.projection == "seed" and not p.gradient
    assert p.clip == "clamp_min" and p.clip_value == 1.0 and p.reduction == "mean"
    assert isinstance(p.t_max, float) and p.t_max == 3.0 and p.entry_point == ""
    assert p.x_shape() == (3, 37, 129) and p.out_shape() == ()
    x = m.buffer("x")
    assert x.role == "input" and x.bytes == 3 * 37 * 129 * 2 and x.shape == (3, 37, 129)
    assert x.dtype == "bf16" and not x.zero_init
    assert m.output == "out" and m.buffer("out").bytes == 4
    assert m.conventions_error is None
    m.check_conventions()
    assert [(s.name, s.type) for s in m.scalars] == [("seed", "i64")]
    assert [s.op for s in m.steps] == ["launch"] * 3 and m.num_launches() == 3
    assert m.kernels() == ["sigreg_projection", "sigreg_fused_ecf", "sigreg_epilogue"]
    assert list(m.regions()) == ["projection_generation", "trig_reduction", "epilogue"]
    assert [b.name for b in m.buffers_with_role("workspace")] == ["ws0", "ws1", "ws2", "ws3"]
    with pytest.raises(KeyError):
        m.buffer("ws9")


def test_describe_naive_artifact_has_copies_and_regions():
    m = capi.describe(str(RAGGED / "naive"))
    ops = [s.op for s in m.steps]
    assert "copy" in ops and ops.count("launch") == m.num_launches() == 22
    assert all(s.kernel is None for s in m.steps if s.op != "launch")
    regions = m.regions()
    assert {"projection_generation", "projection_gemm", "trig_reduction", "epilogue"} <= set(regions)
    assert sorted(i for idx in regions.values() for i in idx) == list(range(len(m.steps)))
    # the naive path materializes [V, N, S, P]
    assert any(b.shape == (3, 37, 77, 9) for b in m.buffers_with_role("workspace"))
    assert m.conventions_error is None


@pytest.mark.parametrize("pipeline", ["fused", "naive"])
def test_describe_explicit_projection_artifact(pipeline):
    m = capi.describe(EXPLICIT / pipeline)
    p = m.problem
    assert p.projection == "explicit" and p.dtype == "f16" and not p.views and p.reduction == "sum"
    assert p.V == 1 and p.x_shape() == (37, 129)
    assert m.buffer("proj").role == "input" and m.buffer("proj").bytes == 129 * 77 * 2
    assert m.scalars == [] and m.conventions_error is None


def test_fixture_ptx_present_and_small():
    for pipeline in ("fused", "naive"):
        ptx = RAGGED / pipeline / "sigreg.ptx"
        assert ptx.exists() and ptx.stat().st_size < 100_000
        text = ptx.read_text()
        for k in capi.describe(RAGGED / pipeline).kernels():
            assert f".entry {k}" in text


def test_describe_fills_in_defaults_and_ignores_top_level_keys(tmp_path):
    o = _base()
    for k in ("P", "t_max", "clip", "clip_value", "reduction", "projection"):
        del o["problem"][k]
    o["built_by"] = "someone"
    o["buffers"][2]["zero_init"] = True
    del o["steps"][0]["region"]
    m = capi.describe(_write(tmp_path, o))
    p = m.problem
    assert (p.P, p.t_max, p.clip, p.clip_value, p.reduction, p.projection) == (17, 3.0, "none", 0.0, "mean", "seed")
    assert [b.zero_init for b in m.buffers] == [False, False, True, False, False, False]
    assert m.steps[0].region == "other"


# ---------------------------------------------------------------------------
# Manifest errors: the runtime's reader's messages, through the C ABI
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("mutate, message", [
    (lambda o: o.update(format="sigreg-aot-v0"), 'format: unsupported format "sigreg-aot-v0"'),
    (lambda o: o.pop("ptx"), "ptx: missing required key"),
    (lambda o: o["problem"].update(Q=1), "problem.Q: unknown key"),
    (lambda o: o["problem"].update(dtype="f64"), 'problem.dtype: invalid value "f64"'),
    (lambda o: o["problem"].update(views=False), 'problem.V: V=3 requires "views": true'),
    (lambda o: o["buffers"][1].update(role="scratch"), 'buffers[1].role: invalid value "scratch"'),
    (lambda o: o["buffers"][0].update(zero_init=True), "buffers[0].zero_init: only a workspace may be zero_init"),
    (lambda o: o["buffers"].append(dict(o["buffers"][1])), "buffers[6].name: duplicate buffer name 'out'"),
    (lambda o: o["scalars"][0].update(type="u8"), 'scalars[0].type: invalid value "u8"'),
    (lambda o: o["steps"][1]["args"][1].update(buffer="ws9"), "steps[1].args[1]: unknown buffer 'ws9'"),
    (lambda o: o["steps"][0]["args"][0].update(scalar="sead"), "steps[0].args[0]: unknown scalar 'sead'"),
    (lambda o: o["steps"][0].update(grid=[1, 2]), "steps[0].grid: expected 3 integers, got 2"),
    (lambda o: o["steps"][0].update(kernal="x"), "steps[0].kernal: unknown key"),
    (lambda o: o["steps"].append({"op": "memset32", "buffer": "out", "count": 2, "value": 0}),
     "steps[3].buffer: range [0, 8) exceeds buffer 'out' of 4 bytes"),
    (lambda o: o["steps"][2]["args"].append({"i32": 2 ** 40}),
     "steps[2].args[3].i32: value 1099511627776 out of range"),
    (lambda o: o["steps"][1]["args"].append({"tensor_map": {"buffer": "x", "dtype": "bf16", "dims": [129, 111],
                                                            "strides": [258], "box": [8, 64]}}),
     "steps[1].args[5].tensor_map.strides[0]: stride 258 is not a multiple of 16 bytes"),
])
def test_reader_errors_name_the_key(tmp_path, mutate, message):
    o = _base()
    mutate(o)
    d = _write(tmp_path, o)
    with pytest.raises(capi.ManifestError) as info:
        capi.describe(d)
    assert str(info.value).startswith(f"{d}/manifest.json: {message}"), str(info.value)


def test_reader_reports_json_syntax_and_missing_files(tmp_path):
    d = _write(tmp_path, '{"format": "sigreg-aot-v1",\n "ptx": }')
    with pytest.raises(capi.ManifestError, match="JSON syntax error at line 2, column 9"):
        capi.describe(d)
    with pytest.raises(capi.ManifestError, match="cannot open '.*/missing/manifest.json'"):
        capi.describe(tmp_path / "missing")


def test_conventions_errors_come_from_the_runtime(tmp_path):
    o = _base()
    del o["buffers"][0]["shape"]  # the reader then has no shape to check the bytes against
    o["buffers"][0]["bytes"] += 2
    m = capi.describe(_write(tmp_path, o, "x-bytes"))
    assert m.conventions_error == "buffer 'x' has 28640 bytes; the problem needs 28638"
    with pytest.raises(capi.ManifestError, match="x-bytes: buffer 'x' has 28640 bytes"):
        m.check_conventions()
    o = _base()
    o["scalars"].append({"name": "gamma", "type": "f32"})
    assert "unknown scalar 'gamma'" in capi.describe(_write(tmp_path, o, "gamma")).conventions_error
    m = capi.describe(NO_PROBLEM)
    assert m.problem is None and m.output == "out"
    assert m.conventions_error == 'manifest has no "problem" object'


def test_capi_function_refuses_broken_conventions_before_the_gpu(tmp_path):
    pytest.importorskip("torch")
    with pytest.raises(capi.ManifestError, match="no \"problem\""):
        capi.CapiFunction(NO_PROBLEM)


def test_a_library_that_does_not_load_is_a_capi_error(tmp_path, monkeypatch):
    (tmp_path / "libsigreg_aot.so").write_text("not a library")
    monkeypatch.setenv("SIGREG_AOT_LIB", str(tmp_path / "libsigreg_aot.so"))
    monkeypatch.setattr(capi, "_LIB", None)
    with pytest.raises(capi.CapiError, match="cannot load"):
        capi.describe(RAGGED / "fused")


# ---------------------------------------------------------------------------
# Argument checks (torch on the CPU: every check but the last, "a CUDA tensor")
# ---------------------------------------------------------------------------

ECF = {
    "format": "sigreg-aot-v1", "ptx": "k.ptx",
    "problem": {"V": 2, "N": 5, "D": 3, "S": 4, "P": 3, "dtype": "bf16", "views": True, "entry_point": "ecf"},
    "buffers": [{"name": "x", "role": "input", "bytes": 60}, {"name": "cos", "role": "output", "bytes": 96},
                {"name": "sin", "role": "output", "bytes": 96}, {"name": "ws", "role": "workspace", "bytes": 8}],
    "scalars": [{"name": "seed", "type": "i64"}],
    "steps": [{"op": "launch", "kernel": "k", "grid": [1, 1, 1], "block": [1, 1, 1],
               "args": [{"buffer": "x"}, {"scalar": "seed"}]}],
}


def _gradient_manifest():
    o = _base()
    o["problem"]["gradient"] = True
    o["buffers"][1].update(bytes=4 * 3 * 37 * 129, shape=[3, 37, 129])
    o["buffers"].append({"name": "grad", "role": "input", "bytes": 4, "dtype": "f32"})
    return o


def test_call_bindings_check_every_argument():
    torch = pytest.importorskip("torch")
    info = capi.describe(RAGGED / "fused")
    x = torch.zeros((3, 37, 129), dtype=torch.bfloat16)

    def bind(*args, **kw):
        return capi.call_bindings(torch, info, *args, **kw)

    with pytest.raises(ValueError, match="pass seed="):
        bind(x)
    with pytest.raises(ValueError, match="seed must be an int64"):
        bind(x, seed=2 ** 63)
    with pytest.raises(ValueError, match="seed must be an int64"):
        bind(x, seed=True)
    with pytest.raises(ValueError, match="proj= is not used"):
        bind(x, seed=1, proj=x)
    with pytest.raises(ValueError, match="grad= is for gradient artifacts"):
        bind(x, seed=1, grad=x)
    with pytest.raises(TypeError, match="'x' must be a torch.Tensor"):
        bind([1.0], seed=1)
    with pytest.raises(TypeError, match="'x' is torch.float16, the artifact takes torch.bfloat16"):
        bind(x.half(), seed=1)
    with pytest.raises(ValueError, match=r"'x' has shape \(3, 37, 128\) \(28416 bytes\), .* 28638 bytes"):
        bind(x[..., :128].contiguous(), seed=1)
    with pytest.raises(ValueError, match="'x' must be contiguous"):
        bind(torch.zeros((3, 129, 37), dtype=torch.bfloat16).transpose(1, 2), seed=1)
    with pytest.raises(TypeError, match="'out' is torch.float64, the artifact takes torch.float32"):
        bind(x, seed=1, out=torch.zeros((), dtype=torch.float64))
    # Any shape of the right size passes; the last check is the device.
    with pytest.raises(ValueError, match="'x' must be a CUDA tensor, it is on cpu"):
        bind(x.view(-1), seed=1)
    np = pytest.importorskip("numpy")
    with pytest.raises(ValueError, match="'x' must be a CUDA tensor"):
        bind(x, seed=np.int64(5))


def test_call_bindings_explicit_and_gradient(tmp_path):
    torch = pytest.importorskip("torch")
    info = capi.describe(EXPLICIT / "fused")
    x = torch.zeros((37, 129), dtype=torch.float16)
    with pytest.raises(ValueError, match="pass proj="):
        capi.call_bindings(torch, info, x)
    with pytest.raises(ValueError, match=r"'proj' has shape \(77, 128\) \(19712 bytes\), .* 19866 bytes"):
        capi.call_bindings(torch, info, x, proj=torch.zeros((77, 128), dtype=torch.float16))
    with pytest.raises(ValueError, match="'x' must be a CUDA tensor"):
        capi.call_bindings(torch, info, x, seed=3, proj=torch.zeros((129, 77), dtype=torch.float16))
    g = capi.describe(_write(tmp_path, _gradient_manifest()))
    assert g.conventions_error is None and g.problem.gradient
    x = torch.zeros((3, 37, 129), dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="needs grad="):
        capi.call_bindings(torch, g, x, seed=1)
    with pytest.raises(ValueError, match="'out' has shape \\(\\) \\(4 bytes\\)"):
        capi.call_bindings(torch, g, x, seed=1, grad=torch.ones(()), out=torch.zeros(()))
    with pytest.raises(ValueError, match="'x' must be a CUDA tensor"):
        capi.call_bindings(torch, g, x, seed=1, grad=torch.ones(()))


def test_entry_point_buffers_are_checked(tmp_path):
    torch = pytest.importorskip("torch")
    info = capi.describe(_write(tmp_path, ECF))
    assert info.conventions_error is None and info.problem.entry_point == "ecf"
    x = torch.zeros((2, 5, 3), dtype=torch.bfloat16)
    cos = torch.zeros((2, 4, 3))
    with pytest.raises(ValueError, match="run with .run"):
        capi.call_bindings(torch, info, x, seed=1)
    with pytest.raises(ValueError, match=r"missing \['sin'\], unknown \['out'\]"):
        capi.check_buffers(torch, info, {"x": x, "cos": cos, "out": cos}, seed=1)
    with pytest.raises(ValueError, match="pass seed="):
        capi.check_buffers(torch, info, {"x": x, "cos": cos, "sin": cos})
    with pytest.raises(ValueError, match="'sin' has shape \\(2, 4, 2\\)"):
        capi.check_buffers(torch, info, {"x": x, "cos": cos, "sin": cos[..., :2].contiguous()}, seed=1)
    with pytest.raises(ValueError, match="'x' must be a CUDA tensor"):
        capi.check_buffers(torch, info, {"x": x, "cos": cos, "sin": cos}, seed=1)


def test_aot_function_is_the_capi_function():
    assert issubclass(aot.AotFunction, capi.CapiFunction)
    assert aot.ManifestError is capi.ManifestError and aot.Problem is capi.Problem
    pytest.importorskip("torch")
    with pytest.raises(capi.CapiError, match="artifacts run on CUDA devices, not cpu"):
        aot.AotFunction(str(RAGGED / "fused"), device="cpu")
    with pytest.raises(capi.CapiError, match="not a CUDA device: -1"):
        capi.CapiFunction(str(RAGGED / "fused"), device=-1)


@pytest.mark.skipif(_cuda_available(), reason="this machine has a GPU")
def test_capi_function_without_a_gpu_says_so():
    pytest.importorskip("torch")
    with pytest.raises(capi.CapiError, match="no CUDA device"):
        aot.AotFunction(str(RAGGED / "fused"))


# ---------------------------------------------------------------------------
# python -m sigreg.aot
# ---------------------------------------------------------------------------

def test_cli_reports_reader_errors(tmp_path, capsys):
    o = _base()
    o["steps"][0]["grid"] = [1, 0, 1]
    d = _write(tmp_path, o)
    assert aot.main([str(d)]) == 2
    assert f"error: {d}/manifest.json: steps[0].grid[1]: value 0 out of range" in capsys.readouterr().out


def test_cli_refuses_what_it_does_not_validate(tmp_path, capsys):
    assert aot.main([str(NO_PROBLEM)]) == 2
    assert 'manifest has no "problem" object' in capsys.readouterr().out
    assert aot.main([str(_write(tmp_path, _gradient_manifest()))]) == 2
    assert "a gradient artifact (validate it with sigreg-aot-run)" in capsys.readouterr().out
    assert aot.main([str(_write(tmp_path, ECF, "ecf"))]) == 2
    assert "the ecf entry point is not a loss" in capsys.readouterr().out


@pytest.mark.skipif(_cuda_available(), reason="this machine has a GPU")
def test_cli_describes_then_needs_the_gpu(capsys):
    pytest.importorskip("torch")
    assert aot.main([str(RAGGED / "fused"), str(RAGGED / "naive")]) == 2
    out = capsys.readouterr().out
    assert "pipeline='fused' V=3 N=37 D=129 S=77 P=9 bf16 seed mean clip=clamp_min, 3 steps, 3 launches" in out
    assert "region trig_reduction           launches=1 kernels=sigreg_fused_ecf" in out
    assert "pipeline='naive'" in out  # the second artifact is tried too
    assert out.count("error: torch sees no CUDA device") == 2


def test_cli_as_a_module(tmp_path):
    r = subprocess.run([sys.executable, "-m", "sigreg.aot", str(tmp_path / "missing")], capture_output=True,
                       text=True, cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO / "python")))
    assert r.returncode == 2
    assert "cannot open" in r.stdout and "manifest.json" in r.stdout
    r = subprocess.run([sys.executable, "-m", "sigreg.aot"], capture_output=True, text=True, cwd=REPO,
                       env=dict(os.environ, PYTHONPATH=str(REPO / "python")))
    assert r.returncode == 2 and "artifact" in r.stderr


# ---------------------------------------------------------------------------
# CapiFunction's calls into the C ABI, against a fake library (CPU tensors)
# ---------------------------------------------------------------------------

class _FakeLib:
    """The C ABI functions CapiFunction calls once loaded; records them, fails on request."""

    def __init__(self, fail=None):
        self.calls, self.fail = [], fail

    def _rc(self, name):
        return 1 if name == self.fail else 0

    def sigreg_aot_bind(self, h, name, ptr):
        self.calls.append(("bind", name.decode(), ptr))
        return self._rc("bind")

    def sigreg_aot_set_seed(self, h, seed):
        self.calls.append(("seed", seed))
        return self._rc("seed")

    def sigreg_aot_run(self, h, stream):
        self.calls.append(("run", stream))
        return self._rc("run")

    def sigreg_aot_last_error(self, h):
        return b"the runtime's message"

    def sigreg_aot_destroy(self, h):
        self.calls.append(("destroy",))


# The full checks as the module defines them (_fake_function replaces them).
_CHECK_TENSORS = capi._check_tensors


def _fake_function(torch, monkeypatch, artifact, lib):
    """A CapiFunction on `lib`, as __init__ leaves it after sigreg_aot_load_device (device 0),
    for CPU tensors: the device check is left out (the checks before it are those of
    call_bindings) and torch's current stream is the legacy stream (raw handle 0)."""
    def no_device_check(torch_, info, tensors, device=None):
        for name, t in tensors.items():
            capi._check_tensor(torch_, t, name, *capi._expected(info, name))

    monkeypatch.setattr(capi, "_check_tensors", no_device_check)
    monkeypatch.setattr(capi, "_current_stream", lambda torch_, device_index: 0)
    f = capi.CapiFunction.__new__(capi.CapiFunction)
    f._torch, f.artifact_dir, f.info = torch, str(artifact), capi.describe(artifact)
    f.problem, f._lib, f._h, f._bound, f._seed = f.info.problem, lib, 1, {}, None
    f.device_index = 0
    return f


def test_capi_function_binds_changed_addresses_and_seeds_only(monkeypatch):
    torch = pytest.importorskip("torch")
    lib = _FakeLib()
    f = _fake_function(torch, monkeypatch, RAGGED / "fused", lib)
    x = torch.zeros((3, 37, 129), dtype=torch.bfloat16)
    out = f(x, seed=5)
    assert out.shape == () and out.dtype == torch.float32
    assert lib.calls == [("bind", "x", x.data_ptr()), ("bind", "out", out.data_ptr()), ("seed", 5), ("run", 1)]
    lib.calls.clear()
    f(x, seed=5, out=out)  # same addresses, same seed: only the run
    assert lib.calls == [("run", 1)]
    lib.calls.clear()
    x2 = x.clone()
    f(x2, seed=6, out=out)
    assert lib.calls == [("bind", "x", x2.data_ptr()), ("seed", 6), ("run", 1)]
    assert f.num_launches == 3 and [r["region"] for r in f.regions()] == [
        "projection_generation", "trig_reduction", "epilogue"]
    assert "pipeline='fused', V=3 N=37 D=129 S=77 P=9 bf16, 3 steps, 3 launches" in repr(f)
    f.close()
    f.close()
    assert lib.calls[-1] == ("destroy",) and lib.calls.count(("destroy",)) == 1


class _FakeCallLib(_FakeLib):
    """A library with sigreg_aot_call (the one-call form)."""

    def sigreg_aot_call(self, h, stream, x, aux, out, seed):
        self.calls.append(("call", stream, x, aux, out, seed))
        return self._rc("call")


def test_capi_function_one_call_form(monkeypatch, tmp_path):
    # The usual call, checked against per-artifact constants, is one sigreg_aot_call (x, the
    # other input, the output, the seed); out= or anything the constants do not accept takes
    # the general path (its messages; then bind, seed and run as before, every binding again
    # since the call moved them). CPU tensors count as being on the artifact's device 0.
    torch = pytest.importorskip("torch")
    lib = _FakeCallLib()
    f = _fake_function(torch, monkeypatch, RAGGED / "fused", lib)
    monkeypatch.setattr(torch.Tensor, "get_device", lambda self: 0)
    x = torch.zeros((3, 37, 129), dtype=torch.bfloat16)
    out = f(x, seed=5)
    assert out.shape == () and out.dtype == torch.float32
    assert lib.calls == [("call", 1, x.data_ptr(), 0, out.data_ptr(), 5)]
    lib.calls.clear()
    f(x, seed=5, out=out)
    assert lib.calls == [("bind", "x", x.data_ptr()), ("bind", "out", out.data_ptr()), ("seed", 5),
                         ("run", 1)]
    lib.calls.clear()
    for args, kw in [((x.half(),), dict(seed=1)), ((x,), dict(seed=2 ** 63)), ((x,), dict(seed=True)),
                     ((x,), dict(seed=1, grad=x)), ((x[:, :, :128],), dict(seed=1))]:
        with pytest.raises((TypeError, ValueError)):
            f(*args, **kw)
    assert lib.calls == []
    lib.fail = "call"
    with pytest.raises(capi.CapiError, match="call: the runtime's message"):
        f(x, seed=5)
    # A gradient artifact: grad is the other input, dL/dx (x's shape, f32) the output.
    g = _fake_function(torch, monkeypatch, _write(tmp_path, _gradient_manifest()), lib)
    lib.fail, lib.calls = None, []
    cot = torch.ones(())
    dx = g(x, seed=3, grad=cot)
    assert dx.shape == (3, 37, 129) and dx.dtype == torch.float32
    assert lib.calls == [("call", 1, x.data_ptr(), cot.data_ptr(), dx.data_ptr(), 3)]
    with pytest.raises(ValueError, match="needs grad="):
        g(x, seed=3)
    # Entry points and steps are run, not called: no one-call form; nor with
    # SIGREG_NO_ONE_CALL=1 (bind, seed and run).
    assert _fake_function(torch, monkeypatch, _write(tmp_path, ECF, "ecf"), lib)._fast is None
    monkeypatch.setenv("SIGREG_NO_ONE_CALL", "1")
    h = _fake_function(torch, monkeypatch, RAGGED / "fused", lib)
    lib.calls = []
    out = h(x, seed=5)
    assert h._fast is None and [c[0] for c in lib.calls] == ["bind", "bind", "seed", "run"]


def test_capi_function_run_and_errors(monkeypatch, tmp_path):
    torch = pytest.importorskip("torch")
    lib = _FakeLib(fail="run")
    f = _fake_function(torch, monkeypatch, _write(tmp_path, ECF), lib)
    x = torch.zeros((2, 5, 3), dtype=torch.bfloat16)
    cos, sin = torch.zeros((2, 4, 3)), torch.zeros((2, 4, 3))
    with pytest.raises(capi.CapiError, match="run: the runtime's message"):
        f.run({"x": x, "cos": cos, "sin": sin}, seed=9)
    assert [c[0] for c in lib.calls] == ["bind", "bind", "bind", "seed", "run"]
    lib.fail = "bind"
    with pytest.raises(capi.CapiError, match="bind x: the runtime's message"):
        f.run({"x": x.clone(), "cos": cos, "sin": sin}, seed=9)


def test_capi_function_fast_checks_fall_back_to_the_full_messages(monkeypatch, tmp_path):
    # run() and __call__ first test their arguments against per-artifact constants; whatever
    # that test does not accept goes through check_buffers / call_bindings, so a bad call
    # raises exactly their error. Here CPU tensors count as CUDA ones on the artifact's device
    # 0 (the device check is the fast test's last).
    torch = pytest.importorskip("torch")
    lib = _FakeLib()
    f = _fake_function(torch, monkeypatch, _write(tmp_path, ECF), lib)
    monkeypatch.setattr(torch.Tensor, "is_cuda", property(lambda self: True))
    monkeypatch.setattr(torch.Tensor, "get_device", lambda self: 0)
    full = []

    def counted(check):
        def wrapper(*args, **kw):
            full.append(check.__name__)
            return check(*args, **kw)
        return wrapper

    monkeypatch.setattr(capi, "check_buffers", counted(capi.check_buffers))
    monkeypatch.setattr(capi, "call_bindings", counted(capi.call_bindings))
    x = torch.zeros((2, 5, 3), dtype=torch.bfloat16)
    cos, sin = torch.zeros((2, 4, 3)), torch.zeros((2, 4, 3))
    good = {"x": x, "cos": cos, "sin": sin}
    for seed in (9, 9, 10, -2 ** 63, 2 ** 63 - 1):
        f.run(good, seed=seed)
    assert full == [] and lib.calls[-1] == ("run", 1)
    bad = [({"x": x, "cos": cos}, 1), ({"x": x, "cos": cos, "sin": sin, "out": cos}, 1),
           (good, None), (good, True), (good, 2 ** 63), (good, 1.0),
           ({"x": x.float(), "cos": cos, "sin": sin}, 1), ({"x": x, "cos": cos, "sin": [0.0]}, 1),
           ({"x": x, "cos": cos, "sin": cos[..., :2].contiguous()}, 1),
           ({"x": x, "cos": cos, "sin": torch.zeros((2, 3, 4)).transpose(1, 2)}, 1)]
    for buffers, seed in bad:
        with pytest.raises((TypeError, ValueError)) as want:
            capi.check_buffers(torch, f.info, buffers, seed)
        full.clear()
        with pytest.raises(type(want.value), match=re.escape(str(want.value))):
            f.run(buffers, seed=seed)
        assert full == ["check_buffers"]
    # The same for calls: the fast test, else call_bindings with its messages.
    g = _fake_function(torch, monkeypatch, RAGGED / "fused", lib)
    x = torch.zeros((3, 37, 129), dtype=torch.bfloat16)
    full.clear()
    out = g(x, seed=5)
    g(x, seed=6, out=out)
    assert full == []
    for args, kw in [((x,), {}), ((x.half(),), dict(seed=1)), ((x,), dict(seed=1, grad=x)),
                     ((x,), dict(seed=1, out=torch.zeros((), dtype=torch.float64)))]:
        with pytest.raises((TypeError, ValueError)) as want:
            capi.call_bindings(torch, g.info, *args, **kw)
        full.clear()
        with pytest.raises(type(want.value), match=re.escape(str(want.value))):
            g(*args, **kw)
        assert full == ["call_bindings"]
    # A tensor on another device than the artifact's fails the fast test and the full checks
    # say so (the C ABI would launch on the artifact's device with that address).
    monkeypatch.setattr(capi, "_check_tensors", _CHECK_TENSORS)
    monkeypatch.setattr(torch.Tensor, "get_device", lambda self: 1)
    full.clear()
    with pytest.raises(ValueError, match="'x' is on cpu, the artifact was loaded on cuda:0"):
        g(x, seed=5)
    with pytest.raises(ValueError, match="the artifact was loaded on cuda:0"):
        f.run(good, seed=1)
    assert full == ["call_bindings", "check_buffers"]
