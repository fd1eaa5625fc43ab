"""sigreg.compile: compile on demand and the artifact cache (CPU: compiling needs no GPU)."""

from __future__ import annotations

import subprocess

import pytest

from sigreg import capi
from sigreg import compile as sc

COMPILER = sc.find_compiler()
needs_compiler = pytest.mark.skipif(COMPILER is None, reason="no sigreg-run (build the project first)")
# Manifests are read by the runtime's reader, through libsigreg_aot.so.
needs_reader = pytest.mark.skipif(capi.library_path() is None, reason="libsigreg_aot.so not built")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIGREG_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_source_forms():
    p = sc.Problem(N=37, D=129, S=77, V=3, P=9, clip="zero_below", clip_value=1e-5, reduction="none")
    text = sc.source(p)
    assert "sigreg.loss %x seed(%seed) slices = 77 points = 9 t_max = 3.0 clip = zero_below(1.0e-05)" in text
    assert "-> tensor<3x77xf32>" in text
    g = sc.source(sc.Problem(N=4, D=8, S=2, projection="explicit", dtype="f16", gradient=True))
    assert "sigreg.loss_grad %x projection(%a : tensor<8x2xf16>) grad(%g : tensor<f32>)" in g
    assert "-> tensor<4x8xf32>" in g
    with pytest.raises(ValueError, match="unknown clip"):
        sc.Problem(N=1, D=1, S=1, clip="clip")


@needs_reader
@needs_compiler
@pytest.mark.parametrize("pipeline", ["fused", "naive"])
def test_compiles_once_then_hits_the_cache(cache, monkeypatch, pipeline):
    p = sc.Problem(N=40, D=24, S=16, V=2, P=5, dtype="bf16", clip="clamp_min", clip_value=0.5)
    out = sc.compile_artifact(p, pipeline=pipeline)
    m = capi.describe(str(out))
    assert (m.problem.V, m.problem.N, m.problem.D, m.problem.S, m.problem.P) == (2, 40, 24, 16, 5)
    assert m.problem.clip == "clamp_min" and m.problem.dtype == "bf16"
    assert (out / "sigreg.ptx").is_file() and (out / "source.mlir").is_file()

    def no_compiler(*args, **kwargs):
        raise AssertionError("the cache should have answered")

    monkeypatch.setattr(subprocess, "run", no_compiler)
    assert sc.compile_artifact(p, pipeline=pipeline) == out
    # Without a compiler the cached artifact of the same request is found too.
    monkeypatch.setenv("SIGREG_RUN", str(cache / "missing"))
    assert sc.compile_artifact(p, pipeline=pipeline) == out


@needs_reader
@needs_compiler
def test_gradient_artifact(cache):
    p = sc.Problem(N=37, D=129, S=77, P=9, dtype="f32", gradient=True)
    m = capi.describe(str(sc.compile_artifact(p, pipeline="naive")))
    assert m.problem.gradient
    assert m.buffer("grad").role == "input"


def test_step_source():
    # A training step: the loss and its gradient of the same operands and knobs, returned
    # together (one forward for both).
    text = sc.source(sc.Problem(N=32, D=64, S=16, V=2, P=9, reduction="sum", step=True))
    assert ("func.func @sigreg(%x: tensor<2x32x64xbf16>, %seed: i64, %g: tensor<f32>) -> "
            "(tensor<f32>, tensor<2x32x64xf32>)") in text
    knobs = "slices = 16 points = 9 t_max = 3.0 reduction = sum"
    assert f"%l = sigreg.loss %x seed(%seed) {knobs}" in text
    assert f"%dx = sigreg.loss_grad %x seed(%seed) grad(%g : tensor<f32>) {knobs}" in text
    assert "return %l, %dx" in text
    with pytest.raises(ValueError, match="gradient does not apply"):
        sc.Problem(N=1, D=1, S=1, step=True, gradient=True)
    with pytest.raises(ValueError, match="entry point"):
        sc.Problem(N=1, D=1, S=1, V=1, step=True, entry_point="ecf")


def test_phased_step_source():
    # The phased step: dL/dx rounded to x's dtype by an arith.truncf of the gradient.
    text = sc.source(sc.Problem(N=32, D=64, S=16, step=True, phased=True))
    assert ("func.func @sigreg(%x: tensor<32x64xbf16>, %seed: i64, %g: tensor<f32>) -> "
            "(tensor<f32>, tensor<32x64xbf16>)") in text
    assert "%dxr = arith.truncf %dx : tensor<32x64xf32> to tensor<32x64xbf16>" in text
    assert "return %l, %dxr" in text
    for bad in (dict(step=False), dict(reduction="none"), dict(dtype="f32")):
        with pytest.raises(ValueError, match="phased applies"):
            sc.Problem(**dict(dict(N=1, D=1, S=1, step=True, phased=True), **bad))


@needs_reader
@needs_compiler
@pytest.mark.parametrize("pipeline", ["fused", "naive"])
def test_step_artifact(cache, pipeline):
    p = sc.Problem(N=32, D=2048, S=1024, step=True)
    m = capi.describe(str(sc.compile_artifact(p, pipeline=pipeline)))
    assert m.problem.step and not m.problem.gradient and m.conventions_error is None
    roles = {b.name: (b.role, b.bytes) for b in m.buffers if b.role != "workspace"}
    assert roles == {"x": ("input", 32 * 2048 * 2), "grad": ("input", 4),
                     "out": ("output", 4), "dx": ("output", 32 * 2048 * 4)}
    assert m.output == "out"
    if pipeline == "fused":
        # One forward for the loss and the gradient: at N = 32 the single launch, which
        # also writes the backward GEMM's operands (G and g), then that GEMM.
        assert [s.kernel for s in m.steps] == [
            "sigreg_single_launch", "sigreg_project_transpose_wgmma"]
        assert not m.phased()


@needs_reader
@needs_compiler
def test_phased_step_artifact(cache):
    # The step in two phases: the single launch (forward, no 'grad'), then the backward GEMM,
    # which alone reads the cotangent and writes dL/dx in bf16.
    p = sc.Problem(N=32, D=2048, S=1024, step=True, phased=True)
    m = capi.describe(str(sc.compile_artifact(p)))
    assert m.problem.step and m.problem.dx_dtype == "bf16" and m.conventions_error is None
    assert m.buffer("dx").bytes == 32 * 2048 * 2 and m.buffer("dx").dtype == "bf16"
    assert [(s.kernel, s.phase) for s in m.steps] == [
        ("sigreg_single_launch", "forward"), ("sigreg_project_transpose_wgmma", "backward")]
    assert "grad" not in m.steps[0].buffers and "grad" in m.steps[1].buffers
    # What the backward GEMM reads of the forward's: G [32, 1024] and g [2048, 1024], bf16.
    assert sorted(b.bytes for b in m.backward_workspaces()) == [32 * 1024 * 2, 2048 * 1024 * 2]
    assert m.phased()


@needs_compiler
def test_compile_errors_carry_the_diagnostic(cache):
    # The fused backward runs on the Hopper kernels, for bf16/f16 inputs: the compiler says so.
    p = sc.Problem(N=8, D=16, S=8, dtype="f32", gradient=True)
    with pytest.raises(sc.CompileError, match="no fused GPU lowering"):
        sc.compile_artifact(p, pipeline="fused")


def test_no_compiler_and_no_cache_names_both(cache, monkeypatch):
    monkeypatch.setenv("SIGREG_RUN", str(cache / "missing"))
    with pytest.raises(sc.CompilerNotFound, match="no cached artifact.*SIGREG_RUN"):
        sc.compile_artifact(sc.Problem(N=8, D=16, S=8))


def test_entry_point_sources():
    fwd = sc.source(sc.Problem(N=300, D=136, S=72, V=2, P=9, entry_point="ecf"))
    assert "-> (tensor<2x72x9xf32> {sigreg.reduced}, tensor<2x72x9xf32> {sigreg.reduced})" in fwd
    assert "%c, %s = sigreg.ecf %y t_max = 3.0" in fwd
    per_slice = sc.source(sc.Problem(N=300, D=136, S=72, V=2, P=9, entry_point="ecf",
                                     reduction="none"))
    assert "sigreg.reduced" not in per_slice
    bwd = sc.source(sc.Problem(N=3, D=8, S=8, V=1, projection="explicit", entry_point="ecf_backward"))
    assert "%a: tensor<8x8xbf16>, %dc: tensor<1x8x17xf32>, %ds: tensor<1x8x17xf32>" in bwd
    assert "sigreg.project_transpose %dy, %a" in bwd
    with pytest.raises(ValueError, match="unknown entry point"):
        sc.Problem(N=1, D=1, S=1, V=1, entry_point="loss")
    with pytest.raises(ValueError, match=r"x \[V, N, D\]"):
        sc.Problem(N=1, D=1, S=1, entry_point="ecf")


@needs_reader
@needs_compiler
def test_entry_point_artifacts_name_their_buffers(cache):
    common = dict(N=300, D=136, S=72, V=2, P=9, dtype="bf16")
    fwd = capi.describe(str(sc.compile_artifact(sc.Problem(**common, entry_point="ecf"))))
    assert fwd.problem.entry_point == "ecf" and fwd.conventions_error is None
    roles = {b.name: b.role for b in fwd.buffers if b.role != "workspace"}
    assert roles == {"x": "input", "cos": "output", "sin": "output"}
    assert any(s.kernel == "sigreg_fused_ecf_wgmma" for s in fwd.steps)
    bwd = capi.describe(str(sc.compile_artifact(
        sc.Problem(**common, entry_point="ecf_backward"))))
    roles = {b.name: b.role for b in bwd.buffers if b.role != "workspace"}
    assert roles == {"x": "input", "dcos": "input", "dsin": "input", "out": "output"}
    assert [s.kernel for s in bwd.steps] == ["sigreg_projection_rows", "sigreg_ecf_grad_wgmma",
                                             "sigreg_project_transpose_wgmma"]
    # f32 inputs have no fused backward: the compiler says why.
    with pytest.raises(sc.CompileError, match="needs bf16 or f16 input"):
        sc.compile_artifact(sc.Problem(**dict(common, dtype="f32"), entry_point="ecf_backward"))


@needs_reader
@needs_compiler
def test_module_precompile_compiles_what_its_calls_run(cache, monkeypatch):
    # SIGReg.precompile on a machine with the compiler fills the cache with every artifact a
    # call of that shape may run (the whole loss and its gradient, the split's entry points;
    # a clipped loss only the split); a machine without the compiler then finds each of them
    # under the request the call makes.
    torch = pytest.importorskip("torch")
    from sigreg import torch as st

    m = st.SIGReg(num_slices=64, n_points=9)
    dirs = m.precompile((2, 100, 136), torch.bfloat16)
    got = [capi.describe(str(d)).problem for d in dirs]
    # The loss, its gradient, the loss seeded from the module's step counter on the GPU
    # (projection "step"), the step phased and whole, each seeded both ways, the split.
    assert [(p.entry_point, p.gradient, p.step, p.dx_dtype, p.projection) for p in got] == [
        ("", False, False, "f32", "seed"), ("", True, False, "f32", "seed"),
        ("", False, False, "f32", "step"),
        ("", False, True, "bf16", "seed"), ("", False, True, "bf16", "step"),
        ("", False, True, "f32", "seed"), ("", False, True, "f32", "step"),
        ("ecf", False, False, "f32", "seed"), ("ecf_backward", False, False, "f32", "seed")]
    assert all((p.V, p.N, p.D, p.S, p.P) == (2, 100, 136, 64, 9) for p in got)
    clipped = st.SIGReg(num_slices=64, n_points=9, clip_value=0.5, clip_mode="clamp_min")
    assert [capi.describe(str(d)).problem.entry_point
            for d in clipped.precompile((100, 136), torch.float16)] == ["ecf", "ecf_backward"]
    monkeypatch.setattr(sc, "find_compiler", lambda: None)
    x = torch.empty(2, 100, 136, dtype=torch.bfloat16)
    requests = [st.whole_problem(x.shape, x.dtype, 64, 9, 3.0, None, "zero_below", "mean", g)
                for g in (False, True)]
    requests.append(st.whole_problem(x.shape, x.dtype, 64, 9, 3.0, None, "zero_below", "mean",
                                     False, device_step=True))
    requests += [st.whole_problem(x.shape, x.dtype, 64, 9, 3.0, None, "zero_below", "mean",
                                  False, step=True, phased=phased, device_step=device_step)
                 for phased in (True, False) for device_step in (False, True)]
    requests += st.split_problems(2, 100, 136, 64, 9, 3.0, "bf16")
    assert [sc.compile_artifact(p) for p in requests] == dirs
    with pytest.raises(ValueError, match="bf16 or f16"):
        st.precompile((100, 136), torch.float32, 64)


@needs_compiler
def test_call_problems_compile(cache):
    # Every artifact the compiled backend may ask for compiles: a training batch that fits the
    # single launch (N 96) with per-slice statistics (the step read the cotangent's reshape
    # before it existed) and with a mean, views with a clip, and N 300, D 72, S 48, where the
    # bf16 step's forward splits g into hi + lo parts and its backward reads the hi rows (both
    # failed to compile before 2026-12-05).
    st = pytest.importorskip("sigreg.torch")
    torch = pytest.importorskip("torch")
    for shape, knobs in [((96, 64), dict(reduction="none")),
                         ((96, 64), dict(reduction="mean")),
                         ((2, 40, 136), dict(clip_value=0.8, reduction="sum")),
                         ((300, 72), dict(reduction="mean"))]:
        dirs = st.precompile(shape, torch.bfloat16, 48, **knobs)
        assert len(dirs) == len(st.call_problems(shape, torch.bfloat16, 48, **knobs))
        assert all((d / "manifest.json").is_file() for d in dirs)


def test_precompile_skips_what_the_module_falls_back_from(monkeypatch):
    # An artifact the compiler rejects is skipped with a warning when the module has another
    # path for it; the split's entry points are the last path, so their rejection raises.
    st = pytest.importorskip("sigreg.torch")
    torch = pytest.importorskip("torch")

    def compile_artifact(p):
        if p.step or p.entry_point == "ecf_backward":
            raise sc.CompileError(f"x.mlir:1:1: error: no lowering for {p.entry_point or 'step'}")
        return p

    monkeypatch.setattr(sc, "compile_artifact", compile_artifact)
    problems = st.call_problems((96, 64), torch.bfloat16, 48)
    with pytest.warns(RuntimeWarning, match="skipped .*step=True.*error: no lowering for step"):
        with pytest.raises(sc.CompileError, match="ecf_backward"):
            st.precompile((96, 64), torch.bfloat16, 48)
    kept = [p for p in problems if not p.step and not p.entry_point]
    assert kept and len(kept) < len(problems)
