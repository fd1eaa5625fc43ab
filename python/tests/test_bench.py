"""CPU tests of sigreg.bench: the work model against the seed's totals, the threaded
projection and reference, the table/JSON helpers and the plots (fake data).
No torch, triton or CUDA needed (the plot test needs matplotlib and is skipped without)."""

import json
import math
from pathlib import Path

import numpy as np
import pytest

from sigreg import bench, capi, philox
from sigreg import reference as ref

DATA = Path(__file__).resolve().parent / "data" / "aot"


# ---------------------------------------------------------------------------
# Work model
# ---------------------------------------------------------------------------

def test_seed_totals_blog_shape():
    B, D, S, P = 32, 2048, 1024, 17
    # the seed's closed forms, evaluated by hand for the blog shape
    assert bench.seed_total_flops(B, D, S, P) == 1024 * (2048 * 67 + 17 * 104 + 3) + 1 == 142_322_689
    assert bench.seed_total_bytes(B, D, S, P, 2) == (2048 * 4128 + 52 * 67_585) * 2 == 23_937_128
    # the per-region counts add up to the closed forms
    assert sum(bench.seed_region_flops(B, D, S, P).values()) == bench.seed_total_flops(B, D, S, P)
    assert sum(bench.seed_region_bytes(B, D, S, P, 2).values()) == bench.seed_total_bytes(B, D, S, P, 2)
    # the seed's refactored AI for S=1024, P=17
    ai = bench.seed_total_flops(B, D, S, P) / bench.seed_total_bytes(B, D, S, P, 2)
    ai_seed = (1024 * (D * (2 * B + 3) + 51 * B + 139) + 1) / ((D * (B + 4096) + 52 * (2048 * B + 2049)) * 2)
    assert math.isclose(ai, ai_seed, rel_tol=1e-15)


@pytest.mark.parametrize("B,D,S,P", [(32, 2048, 1024, 17), (8192, 4096, 4096, 17), (37, 129, 77, 9), (1, 1, 1, 3)])
def test_region_sums_match_closed_forms(B, D, S, P):
    assert sum(bench.seed_region_flops(B, D, S, P).values()) == bench.seed_total_flops(B, D, S, P)
    for q in (2, 4):
        assert sum(bench.seed_region_bytes(B, D, S, P, q).values()) == bench.seed_total_bytes(B, D, S, P, q)


def test_work_model_is_seed_total_without_projection_generation():
    for name, (V, N, D, S, P) in bench.CONFIGS.items():
        m = bench.work_model(V, N, D, S, P, "bf16")
        assert m["flops"] == m["flops_gemm"] + m["flops_ecf"] + m["flops_epilogue"]
        assert m["flops_gemm"] == 2 * V * N * D * S
        assert m["trig_evals"] == 2 * V * N * S * P
        assert m["bytes_min_without_A"] == V * N * D * 2 + 4
        assert m["bytes_min_with_A"] == m["bytes_min_without_A"] + 4 * D * S
        if V == 1:
            assert m["flops"] == bench.seed_total_flops(N, D, S, P) - S * (1 + 3 * D), name
    blog = bench.work_model(1, 32, 2048, 1024, 17)
    assert blog["flops"] == 142_322_689 - 1024 * (1 + 3 * 2048)
    # docs/CONTRACT.md section 8: the large GEMM is 275 GFLOP, the ECF 570 M (cos, sin) pairs
    large = bench.work_model(*bench.CONFIGS["large"])
    assert round(large["flops_gemm"] / 1e9) == 275
    assert round(large["trig_evals"] / 2 / 1e6) == 570


def test_work_model_views_scale_per_view():
    one = bench.work_model(1, 256, 16, 256, 17)
    four = bench.work_model(4, 256, 16, 256, 17)
    assert four["flops_gemm"] == 4 * one["flops_gemm"]
    assert four["flops_ecf"] == 4 * one["flops_ecf"]
    assert four["flops_epilogue"] == 4 * (one["flops_epilogue"] - 1) + 1


def test_configs_and_x_shapes():
    assert bench.CONFIGS["blog"] == (1, 32, 2048, 1024, 17)
    assert bench.CONFIGS["minimal"] == (4, 256, 16, 256, 17)
    assert bench.CONFIGS["mid"] == (1, 1024, 1024, 1024, 17)
    assert bench.CONFIGS["large"] == (1, 8192, 4096, 4096, 17)
    assert bench.x_shape(1, 32, 2048) == (32, 2048)
    assert bench.x_shape(4, 256, 16) == (4, 256, 16)


# ---------------------------------------------------------------------------
# Projection and reference
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("D,S", [(37, 129), (129, 77), (3, 1000)])
def test_projection_threaded_is_bit_exact(D, S):
    want = philox.projection(99, D, S)
    got = bench.projection_threaded(99, D, S, threads=3, min_parallel=0)
    assert got.dtype == np.float32 and got.shape == (D, S)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))


@pytest.mark.parametrize("shape", [(37, 129), (3, 37, 129)])
def test_reference_loss_matches_reference_module(shape):
    rng = np.random.default_rng(5)
    x = rng.normal(size=shape)
    A = philox.projection_f64(7, shape[-1], 77)
    want = ref.loss(x, A, num_points=9, t_max=3.0)
    got = bench.reference_loss(x, A, 9, 3.0, threads=4, slice_chunk=10)
    assert math.isclose(got, want, rel_tol=1e-12)


# ---------------------------------------------------------------------------
# Speed-ups, table, JSON
# ---------------------------------------------------------------------------

def _fake_config():
    V, N, D, S, P = bench.CONFIGS["blog"]
    model = bench.work_model(V, N, D, S, P)
    rows = [
        ("eager", "torch", True, 0.208, "ok"), ("eager-randn", "torch", False, 0.25, "ok"),
        ("eager+graph", "torch", True, 0.068, "ok"), ("compile", "torch", True, 0.413, "ok"),
        ("compile-ro", "torch", True, 0.177, "ok"), ("triton-2k", "triton", True, 0.153, "ok"),
        ("naive", "aot", False, None, "WRONG"), ("fused", "aot", False, 0.012, "ok"),
        ("fused+graph", "aot", False, 0.006, "ok"), ("naive+graph", "aot", False, None, "SKIP"),
    ]
    variants = []
    for name, group, reads_A, ms, status in rows:
        v = {"name": name, "group": group, "A": "explicit" if reads_A else "seed", "status": status, "ms": ms,
             "loss": 1.0, "rel_err": 1e-4 if status == "ok" else 0.5}
        if status == "SKIP":
            v["error"] = "no artifact at gpu-artifacts/blog-bf16/naive (--artifacts)"
        if ms:
            nbytes = model["bytes_min_with_A"] if reads_A else model["bytes_min_without_A"]
            v.update(bytes=nbytes, ai=model["flops"] / nbytes, gflops=model["flops"] / (ms * 1e-3) / 1e9)
        variants.append(v)
    bench.speedups(variants)
    return {"name": "blog", "shape": dict(V=V, N=N, D=D, S=S, P=P), "dtype": "bf16", "x_shape": [N, D],
            "seed": 1234, "input_seed": 42, "tolerance": 2e-3, "model": model,
            "reference": {"loss": 1.0123, "seconds": 0.5}, "variants": variants,
            "floors": {"cuBLAS GEMM x@A": 0.0095, "randn+normalize": 0.03}}


def test_speedups():
    cfg = _fake_config()
    by = {v["name"]: v for v in cfg["variants"]}
    assert by["eager"]["speedup_vs_eager"] == pytest.approx(1.0)
    assert by["fused"]["speedup_vs_eager"] == pytest.approx(0.208 / 0.012)
    # best PyTorch variant = min(eager, eager+graph, compile, compile-ro) = eager+graph
    assert by["fused"]["best_torch"] == "eager+graph"
    assert by["fused"]["speedup_vs_best_torch"] == pytest.approx(0.068 / 0.012)
    assert by["naive"]["speedup_vs_eager"] is None  # WRONG is not timed
    assert by["triton-2k"]["speedup_vs_best_torch"] == pytest.approx(0.068 / 0.153)


def test_format_table_and_json(tmp_path):
    cfg = _fake_config()
    text = bench.format_table(cfg)
    assert "== blog: V=1 N=32 D=2048 S=1024 P=17 bf16" in text
    lines = {ln.split()[0]: ln for ln in text.splitlines() if ln.startswith("   ") and ln.split()}
    assert "WRONG" in lines["naive"] and "skip" in lines["naive+graph"]
    assert "17.33x" in lines["fused"]  # 0.208 / 0.012
    assert "floors: cuBLAS GEMM x@A 0.0095 ms" in text
    doc = {"configs": {"blog": cfg}, "x": float("nan"), "y": np.float32(2.5), "z": np.int64(3)}
    p = tmp_path / "sub" / "bench.json"
    bench._write_json(str(p), doc)
    back = json.loads(p.read_text())
    assert back["x"] is None and back["y"] == 2.5 and back["z"] == 3
    assert back["configs"]["blog"]["variants"][0]["name"] == "eager"


def test_plots_with_fake_data(tmp_path):
    pytest.importorskip("matplotlib")
    cfg = _fake_config()
    ceilings = {"copy_bytes_per_s": 4.27e12, "gemm_bf16_flops_per_s": 796e12, "empty_launch_us": 3.9}
    paths = bench.plot_config(cfg, ceilings, str(tmp_path))
    assert [Path(p).name for p in paths] == ["variants-blog.png", "roofline-blog.png"]
    for p in paths:
        assert Path(p).stat().st_size > 1000
    # missing ceilings still plot the points
    paths = bench.plot_config(cfg, {}, str(tmp_path / "noceil"))
    assert all(Path(p).exists() for p in paths)


def test_artifact_problem_check():
    p = capi.Problem(N=256, D=16, S=256, dtype="bf16", V=4, P=17, views=True)
    assert bench._artifact_problem_mismatch(p, 4, 256, 16, 256, 17, "bf16") is None
    assert "V=4 views=True" in bench._artifact_problem_mismatch(p, 1, 256, 16, 256, 17, "bf16")
    p2 = capi.Problem(N=32, D=2048, S=1024, dtype="bf16")
    assert bench._artifact_problem_mismatch(p2, 1, 32, 2048, 1024, 17, "bf16") is None
    p2.clip = "clamp_min"
    assert "clip" in bench._artifact_problem_mismatch(p2, 1, 32, 2048, 1024, 17, "bf16")


@pytest.mark.skipif(capi.library_path() is None, reason="libsigreg_aot.so not built")
def test_artifact_problem_check_uses_the_runtime_reader():
    m = capi.describe(DATA / "ragged-bf16-clamp" / "fused")
    # the ragged fixture is not an anchor configuration: the harness must refuse it
    why = bench._artifact_problem_mismatch(m.problem, 1, 32, 2048, 1024, 17, "bf16")
    assert why and "N=37" in why


def test_cli_rejects_unknown_config():
    with pytest.raises(SystemExit):
        bench.main(["--configs", "blog,huge"])
