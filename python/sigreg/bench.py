"""Benchmark harness: every SIGReg variant in one process, on the same inputs (issue 4, item 3).

    PYTHONPATH=python python3 -m sigreg.bench --artifacts gpu-artifacts \\
        [--configs blog,minimal,mid,large] [--dtype bf16] [--json FILE] [--plot DIR] [--quick]

Per anchor configuration of docs/CONTRACT.md section 4 (V, N, D, S, P: blog 1,32,2048,1024,17;
minimal 4,256,16,256,17; mid 1,1024,1024,1024,17; large 1,8192,4096,4096,17; V=1 means
x is [N, D]), in ONE process, on the same x (randn, rounded to --dtype) and the same
projection A = ``philox.projection(seed, D, S)`` (the project's generator, bit-exact with
the in-kernel one of the seed-projection artifacts, so every variant computes the same
loss):

  eager            kernels-ref/torch_eager.py sigreg_eager(x, A) with the explicit f32 A
  eager-randn      the LeJEPA-style eager: A drawn inside the call by torch.randn +
                   normalize from a reseeded torch.Generator (its own A; checked against
                   the reference on that A)
  eager+graph      eager(x, A) captured once in a torch.cuda.CUDAGraph, replayed
  compile          torch.compile(eager, dynamic=False), default mode
  compile-ro       torch.compile(eager, mode="reduce-overhead") (CUDA graphs)
  triton-2k        cuBLAS GEMM + the two hand-written Triton kernels (kernels-ref/triton_kernels.py)
  triton-2k+graph  the same, replayed from a CUDA graph
  naive, fused     the project's AOT artifacts DIR/<config>-<dtype>/{naive,fused} run through
                   sigreg.capi.CapiFunction (the runtime's C ABI, torch's stream); their A
                   is generated in-kernel from the seed (projection "seed"); timed as
                   Python calls (host launch cost included, as docs/CONTRACT.md section 6 asks to say)
  naive+graph, fused+graph   the same artifacts replayed from a CUDA graph (device time)

Every variant's loss is checked against the float64 NumPy reference
(``sigreg.reference`` on the dtype-rounded x and the f32 A, i.e. A as the artifacts
generate it; tolerance of docs/CONTRACT.md section 5: 2e-3 for bf16/f16, 1e-4 for f32). A variant
whose loss is wrong (or NaN) is reported WRONG and not timed; one that raises is ERROR.

Timing: ``triton.testing.do_bench(fn, warmup, rep, return_mode="median")`` (it zeroes a
256 MB buffer before every run to flush L2, and times each run with CUDA events), as for
the PyTorch/Triton figures of docs/CONTRACT.md section 8. Ceilings in the same run: an empty
kernel launch (Triton; also replayed from a graph), device-to-device copy bandwidth (bytes read
+ written, 1 GiB), bf16 GEMM rate at 8192x4096x4096. Floors per configuration: the bare cuBLAS GEMM x @ A (A already
in x's dtype) and torch randn + normalize of A.

Work model (the roofline). The write-up the project grew from (a roofline analysis and
two hand-written Triton kernels; docs/CONTRACT.md section 7) counts, with B the batch, q the
bytes per element, per region:

  projection generation   FLOPs S(1 + 3D)          bytes 3DSq
  projection GEMM         FLOPs 2BDS               bytes (BD + DS + BS)q
  frequency projection    FLOPs BSP                bytes (BSP + BS + P)q
  cos / sin               (SFU, not counted)       bytes 3BSPq
  batch mean              FLOPs 2BSP + 2SP         bytes (2BSP + 2SP)q
  squared error           FLOPs 4SP                bytes (3SP + P)q
  weighted integration    FLOPs 2SP + S            bytes (SP + P + S)q
  final mean              FLOPs S + 1              bytes (S + 1)q
  total                   FLOPs S(D(2B+3) + P(3B+8) + 3) + 1
                          bytes (D(B + 4S) + (3P+1)(2S(B+1) + 1))q

(the all-reduce, 2SP FLOPs and 2SPq bytes, is outside the totals). For V views the
GEMM runs over B = V*N rows and everything after it once per view (S -> V*S). The
roofline uses the same work for every variant (so GFLOP/s compare like time):

  FLOPs  = 2VNDS (GEMM) + V(3NSP + 2SP) (frequency projection + batch means)
           + V(6SP + S) + VS + 1 (squared error, weighted integration, final mean)
         = the seed's total without the projection generation; cos/sin are reported
           separately as 2VNSP transcendental evaluations ("trig_evals").
  bytes  = the minimal traffic: x (VND * bytes of dtype) + out (4) + A (4DS, f32) when
           the variant reads A (eager, compile, triton); the seed-projection artifacts and
           eager-randn generate A and do not read it.
  arithmetic intensity = FLOPs / bytes; achieved GFLOP/s = FLOPs / median time.

The roofline figure draws min(copy bandwidth * AI, bf16 GEMM rate) from the ceilings
measured in the same run and one point per correct variant.

Output: one table per configuration (variant, median ms, speed-up vs eager, vs the best
PyTorch variant = min of eager, eager+graph, compile, compile-ro; correct/WRONG), the JSON
(--json; rewritten after every configuration so a timeout keeps what was done), and with
--plot DIR the figures variants-<config>.png and roofline-<config>.png (matplotlib,
imported lazily; skipped with a message when missing).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import sys
import time
import traceback
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from . import philox
from . import reference as ref

__all__ = [
    "CONFIGS",
    "x_shape",
    "seed_region_flops",
    "seed_region_bytes",
    "seed_total_flops",
    "seed_total_bytes",
    "work_model",
    "projection_threaded",
    "reference_loss",
    "speedups",
    "format_table",
    "plot_config",
    "main",
]

# name -> (V, N, D, S, P)
CONFIGS: "OrderedDict[str, tuple]" = OrderedDict([
    ("blog", (1, 32, 2048, 1024, 17)),
    ("minimal", (4, 256, 16, 256, 17)),
    ("mid", (1, 1024, 1024, 1024, 17)),
    ("large", (1, 8192, 4096, 4096, 17)),
])
T_MAX = 3.0
DTYPE_BYTES = {"bf16": 2, "f16": 2, "f32": 4}
TOLERANCE = {"bf16": 2e-3, "f16": 2e-3, "f32": 1e-4}
TORCH_BASELINES = ("eager", "eager+graph", "compile", "compile-ro")
SLOW_CALL_S = 0.5  # a first call slower than this is timed with 3 runs, and its +graph variant skipped

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
KERNELS_REF = os.path.join(REPO, "kernels-ref")


def x_shape(V: int, N: int, D: int) -> tuple:
    """V=1 configurations take x as [N, D] (as scripts/build-gpu-artifacts.sh compiles them)."""
    return (N, D) if V == 1 else (V, N, D)


# ---------------------------------------------------------------------------
# Work model (pure; tested on the CPU)
# ---------------------------------------------------------------------------

def seed_region_flops(B: int, D: int, S: int, P: int) -> "OrderedDict[str, int]":
    """The original write-up's FLOP count per region (cos/sin not counted; all-reduce apart)."""
    return OrderedDict([
        ("projection_generation", S * (1 + 3 * D)),
        ("projection_gemm", 2 * B * D * S),
        ("frequency_projection", B * S * P),
        ("cos_sin", 0),
        ("batch_mean", 2 * B * S * P + 2 * S * P),
        ("squared_error", 4 * S * P),
        ("weighted_integration", 2 * S * P + S),
        ("final_mean", S + 1),
    ])


def seed_region_bytes(B: int, D: int, S: int, P: int, q: int) -> "OrderedDict[str, int]":
    """The original write-up's bytes moved per region (q bytes per element)."""
    return OrderedDict([
        ("projection_generation", 3 * D * S * q),
        ("projection_gemm", (B * D + D * S + B * S) * q),
        ("frequency_projection", (B * S * P + B * S + P) * q),
        ("cos_sin", 3 * B * S * P * q),
        ("batch_mean", (2 * B * S * P + 2 * S * P) * q),
        ("squared_error", (3 * S * P + P) * q),
        ("weighted_integration", (S * P + P + S) * q),
        ("final_mean", (S + 1) * q),
    ])


def seed_total_flops(B: int, D: int, S: int, P: int) -> int:
    """FLOPs = S(D(2B + 3) + P(3B + 8) + 3) + 1 (the seed's total)."""
    return S * (D * (2 * B + 3) + P * (3 * B + 8) + 3) + 1


def seed_total_bytes(B: int, D: int, S: int, P: int, q: int) -> int:
    """Bytes = (D(B + 4S) + (3P + 1)(2S(B + 1) + 1)) q (the seed's total)."""
    return (D * (B + 4 * S) + (3 * P + 1) * (2 * S * (B + 1) + 1)) * q


def work_model(V: int, N: int, D: int, S: int, P: int, dtype: str = "bf16") -> Dict[str, Any]:
    """FLOPs and minimal bytes of the forward (see the module docstring)."""
    q = DTYPE_BYTES[dtype]
    gemm = 2 * V * N * D * S
    ecf = V * (3 * N * S * P + 2 * S * P)
    epilogue = V * (6 * S * P + S) + V * S + 1
    x_bytes = V * N * D * q
    return {
        "flops": gemm + ecf + epilogue,
        "flops_gemm": gemm,
        "flops_ecf": ecf,
        "flops_epilogue": epilogue,
        "flops_projection_generation": S * (1 + 3 * D),
        "trig_evals": 2 * V * N * S * P,
        "bytes_x": x_bytes,
        "bytes_out": 4,
        "bytes_A": 4 * D * S,
        "bytes_min_without_A": x_bytes + 4,
        "bytes_min_with_A": x_bytes + 4 + 4 * D * S,
        "seed_total_flops_V1": seed_total_flops(V * N, D, S, P),
        "seed_total_bytes_V1": seed_total_bytes(V * N, D, S, P, q),
    }


# ---------------------------------------------------------------------------
# Inputs and the float64 reference (NumPy, threaded)
# ---------------------------------------------------------------------------

def _threads(n: Optional[int] = None) -> int:
    return max(1, int(n) if n else min(32, os.cpu_count() or 1))


def projection_threaded(seed: int, D: int, S: int, threads: Optional[int] = None,
                        min_parallel: int = 1 << 20) -> np.ndarray:
    """``philox.projection(seed, D, S)``, bit for bit, with the Gaussians computed in column
    chunks on a thread pool (NumPy releases the GIL; the large anchor takes about a minute
    on one core). The normalization is philox.projection's own (sequential f32 sums over d).
    """
    if D * S < min_parallel or _threads(threads) == 1:
        return philox.projection(seed, D, S)
    g = np.empty((D, S), dtype=np.float32)
    d = np.arange(D, dtype=np.uint32)[:, None]
    cols = max(1, (1 << 18) // max(D, 1))

    def work(s0):
        s1 = min(S, s0 + cols)
        s = np.arange(s0, s1, dtype=np.uint32)[None, :]
        g[:, s0:s1] = philox.gaussian_at(seed, d, s).reshape(D, s1 - s0)

    with ThreadPoolExecutor(_threads(threads)) as pool:
        list(pool.map(work, range(0, S, cols)))
    acc = np.zeros(S, dtype=np.float32)
    for i in range(D):
        row = g[i]
        acc = acc + row * row
    norm = np.sqrt(acc)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (g / norm[None, :]).astype(np.float32)


def reference_loss(x64: np.ndarray, A64: np.ndarray, P: int, t_max: float = T_MAX,
                   threads: Optional[int] = None, slice_chunk: int = 128) -> float:
    """Mean-reduced SIGReg loss in float64 (no clip): y = x @ A by BLAS, then
    ``reference.statistics_from_projected`` on chunks of slices in a thread pool (bounded
    memory: one [V, N, chunk] block per thread and point)."""
    x64 = np.asarray(x64, dtype=np.float64)
    if x64.ndim == 2:
        x64 = x64[None]
    y = np.matmul(x64, np.asarray(A64, dtype=np.float64))  # [V, N, S]
    S = y.shape[-1]
    N = y.shape[1]
    starts = list(range(0, S, slice_chunk))

    def work(s0):
        return ref.statistics_from_projected(np.ascontiguousarray(y[:, :, s0:s0 + slice_chunk]),
                                             num_points=P, t_max=t_max, n_global=N)

    with ThreadPoolExecutor(_threads(threads)) as pool:
        parts = list(pool.map(work, starts))
    T = np.concatenate(parts, axis=-1)  # [V, S]
    return float(T.mean())


# ---------------------------------------------------------------------------
# Results, speed-ups, table (pure)
# ---------------------------------------------------------------------------

def speedups(variants: List[Dict[str, Any]]) -> None:
    """Fills speedup_vs_eager and speedup_vs_best_torch of every timed variant."""
    ms = {v["name"]: v.get("ms") for v in variants if v.get("status") == "ok" and v.get("ms")}
    eager = ms.get("eager")
    torch_ms = [ms[n] for n in TORCH_BASELINES if n in ms]
    best = min(torch_ms) if torch_ms else None
    best_name = None
    if best is not None:
        best_name = [n for n in TORCH_BASELINES if ms.get(n) == best][0]
    for v in variants:
        t = ms.get(v["name"])
        v["speedup_vs_eager"] = (eager / t) if (t and eager) else None
        v["speedup_vs_best_torch"] = (best / t) if (t and best) else None
        v["best_torch"] = best_name


def _fmt(v, spec, width, none="-"):
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return none.rjust(width)
    return format(v, spec).rjust(width)


def format_table(cfg: Dict[str, Any]) -> str:
    lines = []
    sh = cfg["shape"]
    lines.append(f"== {cfg['name']}: V={sh['V']} N={sh['N']} D={sh['D']} S={sh['S']} P={sh['P']} {cfg['dtype']}"
                 f" x{list(cfg['x_shape'])}; seed={cfg['seed']} input_seed={cfg['input_seed']}")
    r = cfg.get("reference", {})
    if r:
        lines.append(f"   reference loss {r.get('loss'):.8g} (float64 NumPy, A = philox(seed) f32, "
                     f"{r.get('seconds', 0):.1f} s); tolerance {cfg['tolerance']:.0e}")
    head = (f"   {'variant':<16} {'median ms':>10} {'vs eager':>9} {'vs best torch':>13} {'check':>6}"
            f" {'rel.err':>9} {'GFLOP/s':>9}  A / note")
    lines.append(head)
    lines.append("   " + "-" * (len(head) - 3))
    for v in cfg["variants"]:
        st = v.get("status")
        check = {"ok": "ok", "WRONG": "WRONG", "ERROR": "ERROR", "SKIP": "skip"}.get(st, st)
        note = v.get("A", "")
        if st in ("ERROR", "SKIP") and v.get("error"):
            note = v["error"].splitlines()[0][:90] if v["error"] else note
        lines.append(f"   {v['name']:<16} {_fmt(v.get('ms'), '.4f', 10)} "
                     f"{_fmt(v.get('speedup_vs_eager'), '.2f', 8)}{'x' if v.get('speedup_vs_eager') else ' '}"
                     f" {_fmt(v.get('speedup_vs_best_torch'), '.2f', 12)}"
                     f"{'x' if v.get('speedup_vs_best_torch') else ' '}"
                     f" {check:>6} {_fmt(v.get('rel_err'), '.2e', 9)} {_fmt(v.get('gflops'), '.1f', 9)}  {note}")
    fl = cfg.get("floors", {})
    if fl:
        parts = [f"{k} {v:.4f} ms" for k, v in fl.items() if isinstance(v, (int, float))]
        lines.append("   floors: " + "; ".join(parts))
    if cfg["variants"] and cfg["variants"][0].get("best_torch"):
        lines.append(f"   best PyTorch variant: {cfg['variants'][0]['best_torch']}")
    return "\n".join(lines)


def _clean(o):
    """JSON-safe copy: NaN/inf -> None, numpy scalars -> Python."""
    if isinstance(o, dict):
        return {str(k): _clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_clean(v) for v in o]
    if isinstance(o, (np.floating, float)):
        f = float(o)
        return f if math.isfinite(f) else None
    if isinstance(o, np.integer):
        return int(o)
    return o


# ---------------------------------------------------------------------------
# Plots (matplotlib, lazy)
# ---------------------------------------------------------------------------

_GROUP_COLOURS = {"torch": "#4C72B0", "triton": "#DD8452", "aot": "#55A868", "floor": "#8C8C8C"}


def plot_config(cfg: Dict[str, Any], ceilings: Dict[str, Any], outdir: str) -> List[str]:
    """variants-<config>.png (bars, log ms) and roofline-<config>.png. Returns the paths."""
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    os.makedirs(outdir, exist_ok=True)
    name = cfg["name"]
    paths = []
    rows = [v for v in cfg["variants"] if v.get("status") == "ok" and v.get("ms")]
    bad = [v for v in cfg["variants"] if v.get("status") in ("WRONG", "ERROR")]
    floors = [(k, t) for k, t in cfg.get("floors", {}).items() if isinstance(t, (int, float)) and t > 0]

    # -- bar chart
    labels = [v["name"] for v in rows] + [f"floor: {k}" for k, _ in floors]
    values = [v["ms"] for v in rows] + [t for _, t in floors]
    colours = [_GROUP_COLOURS.get(v.get("group"), "#333333") for v in rows] + [_GROUP_COLOURS["floor"]] * len(floors)
    fig, ax = plt.subplots(figsize=(8, 0.45 * max(len(labels) + len(bad), 3) + 1.5))
    ypos = list(range(len(labels)))
    if values:
        ax.barh(ypos, values, color=colours)
        for y, val in zip(ypos, values):
            ax.text(val, y, f" {val:.4g}", va="center", fontsize=8)
        ax.set_xscale("log")
    for i, v in enumerate(bad):
        y = len(labels) + i
        labels.append(v["name"])
        ax.text(0.01, y, f"{v['status']}", transform=ax.get_yaxis_transform(), va="center", color="red", fontsize=8)
        ypos.append(y)
    ax.set_yticks(ypos)
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("median ms (log; do_bench, L2 flushed)")
    sh = cfg["shape"]
    ax.set_title(f"SIGReg forward, {name}: V={sh['V']} N={sh['N']} D={sh['D']} S={sh['S']} P={sh['P']} {cfg['dtype']}",
                 fontsize=9)
    fig.tight_layout()
    p = os.path.join(outdir, f"variants-{name}.png")
    fig.savefig(p, dpi=130)
    plt.close(fig)
    paths.append(p)

    # -- roofline
    bw = ceilings.get("copy_bytes_per_s")
    peak = ceilings.get("gemm_bf16_flops_per_s")
    pts = [v for v in rows if v.get("ai") and v.get("gflops")]
    fig, ax = plt.subplots(figsize=(7, 5))
    ais = [v["ai"] for v in pts]
    lo = min(ais + [1.0]) / 4
    hi = max(ais + [1e4]) * 4
    if bw and peak:
        xs = np.logspace(math.log10(lo), math.log10(hi), 200)
        ax.plot(xs, np.minimum(bw * xs, peak) / 1e9, "k-", lw=1.5,
                label=f"roof: copy {bw / 1e12:.2f} TB/s, bf16 GEMM {peak / 1e12:.0f} TFLOP/s")
        ax.axvline(peak / bw, color="k", ls=":", lw=0.8)
    launch_us = ceilings.get("empty_launch_us")
    if launch_us:
        # one empty launch is the floor of any forward: FLOPs / launch time is the best achievable rate
        ax.axhline(cfg["model"]["flops"] / (launch_us * 1e-6) / 1e9, color="grey", ls="--", lw=1,
                   label=f"one launch ({launch_us:.1f} us) for the whole forward")
    for v in pts:
        ax.loglog(v["ai"], v["gflops"], "o", color=_GROUP_COLOURS.get(v.get("group"), "#333333"))
        ax.annotate(v["name"], (v["ai"], v["gflops"]), textcoords="offset points", xytext=(4, 3), fontsize=7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("arithmetic intensity (FLOP / minimal byte)")
    ax.set_ylabel("achieved GFLOP/s")
    ax.set_title(f"roofline, {name} ({cfg['model']['flops'] / 1e9:.3g} GFLOP per forward)", fontsize=9)
    ax.grid(True, which="both", ls=":", lw=0.5)
    if (bw and peak) or launch_us:
        ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    p = os.path.join(outdir, f"roofline-{name}.png")
    fig.savefig(p, dpi=130)
    plt.close(fig)
    paths.append(p)
    return paths


def _try_plot(cfg, ceilings, outdir) -> None:
    try:
        import matplotlib  # noqa: F401, PLC0415

        del matplotlib
    except ImportError:
        print("   (matplotlib is not installed: no plots)", flush=True)
        return
    try:
        for p in plot_config(cfg, ceilings, outdir):
            print(f"   wrote {p}", flush=True)
    except Exception as e:  # noqa: BLE001 (plots never break a run)
        print(f"   plot failed: {type(e).__name__}: {e}", flush=True)


# ---------------------------------------------------------------------------
# GPU part (torch and triton: imported in main only)
# ---------------------------------------------------------------------------

@dataclass
class Variant:
    name: str
    group: str  # torch | triton | aot
    A: str  # what A the variant uses (table note)
    reads_A: bool
    build: Callable[[], Callable[[], Any]]
    reference: str = "philox"  # which reference loss: philox | randn
    launches: Optional[int] = None


class _Bench:
    def __init__(self, torch, warmup_ms: float, rep_ms: float):
        self.torch = torch
        self.warmup = warmup_ms
        self.rep = rep_ms
        try:
            import triton.testing as tt  # noqa: PLC0415

            self.tt = tt
        except Exception:  # noqa: BLE001
            self.tt = None
            print("warning: triton is not importable; timing with CUDA events + L2 flush instead of do_bench",
                  flush=True)

    def ms(self, fn) -> float:
        if self.tt is not None:
            try:
                return float(self.tt.do_bench(fn, warmup=self.warmup, rep=self.rep, return_mode="median"))
            except TypeError:  # older triton: no return_mode
                r = self.tt.do_bench(fn, warmup=self.warmup, rep=self.rep, quantiles=[0.5])
                return float(r[0] if isinstance(r, (list, tuple)) else r)
        return self._fallback(fn)

    def ms_few(self, fn, runs: int) -> float:
        """Median of a few event-timed runs (L2 flushed before each), for very slow variants."""
        torch = self.torch
        cache = torch.empty(256 * 1024 * 1024, dtype=torch.int8, device="cuda")
        times = []
        for _ in range(runs):
            cache.zero_()
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn()
            e.record()
            torch.cuda.synchronize()
            times.append(s.elapsed_time(e))
        return float(np.median(times))

    def _fallback(self, fn) -> float:
        torch = self.torch
        cache = torch.empty(256 * 1024 * 1024, dtype=torch.int8, device="cuda")
        fn()
        torch.cuda.synchronize()
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(5):
            cache.zero_()
            fn()
        e.record()
        torch.cuda.synchronize()
        est = max(s.elapsed_time(e) / 5, 1e-3)
        n_warm = max(1, int(self.warmup / est))
        n_rep = max(1, int(self.rep / est))
        for _ in range(n_warm):
            fn()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_rep)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_rep)]
        for i in range(n_rep):
            cache.zero_()
            starts[i].record()
            fn()
            ends[i].record()
        torch.cuda.synchronize()
        return float(np.median([a.elapsed_time(b) for a, b in zip(starts, ends)]))


def _graph(torch, fn, warm: int = 3):
    """Captures fn() in a CUDA graph (after warm-up on a side stream); returns replay()."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(warm):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        out = fn()

    def replay():
        g.replay()
        return out

    replay.graph = g  # keep alive
    return replay


def _copy_ceiling(torch, bench: _Bench, n: int) -> Dict[str, Any]:
    src = torch.ones(n, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    t = bench.ms(lambda: dst.copy_(src))
    return {"copy_bytes": 2 * n, "copy_ms": t, "copy_bytes_per_s": 2 * n / (t * 1e-3)}


def _gemm_ceiling(torch, bench: _Bench, M: int, K: int, N: int) -> Dict[str, Any]:
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    t = bench.ms(lambda: torch.matmul(a, b))
    return {"gemm_shape": [M, K, N], "gemm_ms": t, "gemm_bf16_flops_per_s": 2.0 * M * K * N / (t * 1e-3)}


def measure_ceilings(torch, bench: _Bench, quick: bool = False) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    dev = "cuda"
    # empty kernel launch
    try:
        try:
            from . import _bench_kernels  # noqa: PLC0415 (triton)

            dummy = torch.empty(1, device=dev)

            def launch():
                _bench_kernels.empty_kernel[(1,)](dummy)

            launch()
            torch.cuda.synchronize()
            out["empty_kernel"] = "triton"
        except Exception as e:  # noqa: BLE001
            out["empty_kernel_triton_error"] = f"{type(e).__name__}: {e}"

            def launch():
                torch.cuda._sleep(0)

            out["empty_kernel"] = "torch.cuda._sleep(0)"
        launch()
        torch.cuda.synchronize()
        out["empty_launch_us"] = bench.ms(launch) * 1e3
        reps = 100

        def many():
            for _ in range(reps):
                launch()

        replay = _graph(torch, many, warm=1)
        out["empty_launch_graph_us"] = bench.ms(replay) * 1e3 / reps
        del replay
    except Exception as e:  # noqa: BLE001
        out["empty_launch_error"] = f"{type(e).__name__}: {e}"
    # device-to-device copy
    try:
        out.update(_copy_ceiling(torch, bench, (256 if quick else 1024) * 1024 * 1024))
    except Exception as e:  # noqa: BLE001
        out["copy_error"] = f"{type(e).__name__}: {e}"
    # bf16 GEMM at 8192x4096x4096
    try:
        out.update(_gemm_ceiling(torch, bench, 8192, 4096, 4096))
    except Exception as e:  # noqa: BLE001
        out["gemm_error"] = f"{type(e).__name__}: {e}"
    torch.cuda.empty_cache()
    return out


def _import_kernels_ref():
    if KERNELS_REF not in sys.path:
        sys.path.insert(0, KERNELS_REF)
    import torch_eager  # noqa: PLC0415

    try:
        import triton_kernels  # noqa: PLC0415
    except Exception as e:  # noqa: BLE001
        print(f"warning: kernels-ref/triton_kernels.py does not import ({type(e).__name__}: {e})", flush=True)
        triton_kernels = None
    return torch_eager, triton_kernels


def _artifact_problem_mismatch(problem, V, N, D, S, P, dtype) -> Optional[str]:
    want = dict(N=N, D=D, S=S, P=P, dtype=dtype, reduction="mean", clip="none")
    for k, v in want.items():
        if getattr(problem, k) != v:
            return f"artifact {k}={getattr(problem, k)!r}, the configuration needs {v!r}"
    if (problem.V if problem.views else 1) != V:
        return f"artifact V={problem.V} views={problem.views}, the configuration needs V={V}"
    if abs(problem.t_max - T_MAX) > 1e-12:
        return f"artifact t_max={problem.t_max}, the configuration needs {T_MAX}"
    return None


def run_config(torch, bench: _Bench, name: str, dims, args, ceilings) -> Dict[str, Any]:
    V, N, D, S, P = dims
    dtype_name = args.dtype
    tdtype = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[dtype_name]
    dev = torch.device("cuda")
    tol = TOLERANCE[dtype_name]
    seed = args.seed
    shape = x_shape(V, N, D)
    cfg: Dict[str, Any] = OrderedDict(
        name=name, shape=dict(V=V, N=N, D=D, S=S, P=P), dtype=dtype_name, x_shape=list(shape), seed=seed,
        input_seed=args.input_seed, tolerance=tol, t_max=T_MAX, model=work_model(V, N, D, S, P, dtype_name),
        variants=[], floors=OrderedDict())
    t0 = time.time()
    print(f"\n[{name}] V={V} N={N} D={D} S={S} P={P} {dtype_name}: preparing inputs", flush=True)

    # ---- inputs: the same x and A for everyone
    gen = torch.Generator(device=dev).manual_seed(args.input_seed)
    x = torch.randn(shape, generator=gen, device=dev, dtype=torch.float32).to(tdtype).contiguous()
    assert float(x.float().abs().sum()) > 0, "x is all zeros"
    tp = time.time()
    A_np = projection_threaded(seed, D, S, threads=args.threads)
    A = torch.from_numpy(A_np).to(dev)  # f32 [D, S], what the seed artifacts generate in-kernel
    print(f"   A = philox.projection(seed={seed}) {time.time() - tp:.1f} s", flush=True)
    x64 = x.double().cpu().numpy()
    tr = time.time()
    ref_loss = reference_loss(x64, A_np.astype(np.float64), P, T_MAX, threads=args.threads)
    cfg["reference"] = dict(loss=ref_loss, seconds=time.time() - tr, A="philox.projection(seed) f32",
                            x=f"randn(input_seed) rounded to {dtype_name}")
    print(f"   reference loss {ref_loss:.8g} ({time.time() - tr:.1f} s)", flush=True)
    refs = {"philox": ref_loss}

    torch_eager, triton_kernels = _import_kernels_ref()
    integ = torch_eager.integration_tensors(P, T_MAX, dev)

    def eager_fn(xx, AA):
        return torch_eager.sigreg_eager(xx, AA, num_points=P, t_max=T_MAX, integration=integ)

    # ---- variants
    variants: List[Variant] = []
    want = set(args.variants.split(",")) if args.variants else None

    def add(v: Variant):
        if want is None or v.name in want:
            variants.append(v)

    A_note = "explicit f32 A = philox(seed)"
    add(Variant("eager", "torch", A_note, True, lambda: (lambda: eager_fn(x, A))))

    randn_gen = torch.Generator(device=dev)

    def build_randn():
        def fn():
            randn_gen.manual_seed(seed)
            return torch_eager.sigreg_eager(x, None, num_slices=S, num_points=P, t_max=T_MAX, generator=randn_gen,
                                            integration=integ)
        return fn

    add(Variant("eager-randn", "torch", "torch randn+normalize inside (own A)", False, build_randn,
                reference="randn"))
    add(Variant("eager+graph", "torch", A_note, True, lambda: _graph(torch, lambda: eager_fn(x, A))))

    def build_compile(mode):
        def build():
            torch._dynamo.reset()
            kw = {"dynamic": False}
            if mode:
                kw["mode"] = mode
            cf = torch.compile(eager_fn, **kw)
            mark = getattr(getattr(torch, "compiler", None), "cudagraph_mark_step_begin", None)
            tc = time.time()
            for _ in range(3):
                if mode and mark:
                    mark()
                cf(x, A)
            torch.cuda.synchronize()
            print(f"   {('compile-ro' if mode else 'compile')}: compiled and warmed in {time.time() - tc:.1f} s",
                  flush=True)
            if mode and mark:
                def fn():
                    mark()
                    return cf(x, A)
                return fn
            return lambda: cf(x, A)
        return build

    add(Variant("compile", "torch", A_note, True, build_compile(None)))
    add(Variant("compile-ro", "torch", A_note, True, build_compile("reduce-overhead")))
    if triton_kernels is not None:
        def tri():
            return triton_kernels.sigreg_triton(x, A, num_points=P, t_max=T_MAX, integration=integ)
        add(Variant("triton-2k", "triton", A_note, True, lambda: tri))
        add(Variant("triton-2k+graph", "triton", A_note, True, lambda: _graph(torch, tri)))

    aot_funcs: Dict[str, Any] = {}
    art_root = args.artifacts
    for pipeline in ("naive", "fused"):
        art = os.path.join(art_root, f"{name}-{dtype_name}", pipeline) if art_root else None

        def build_aot(pipeline=pipeline, art=art, graph=False):
            def build():
                from . import capi  # noqa: PLC0415

                if pipeline not in aot_funcs:
                    if not art or not os.path.isfile(os.path.join(art, "manifest.json")):
                        raise FileNotFoundError(f"SKIP: no artifact at {art} (--artifacts)")
                    m = capi.describe(art)
                    bad = _artifact_problem_mismatch(m.problem, V, N, D, S, P, dtype_name) if m.problem else \
                        "no problem in the manifest"
                    if bad:
                        raise ValueError(f"SKIP: {bad}")
                    aot_funcs[pipeline] = capi.CapiFunction(art)
                f = aot_funcs[pipeline]
                xx = x.view(f.problem.x_shape())
                proj = A.to(tdtype).contiguous() if f.problem.projection == "explicit" else None
                out = torch.full(f.problem.out_shape(), float("nan"), dtype=torch.float32, device=dev)  # poisoned

                def fn():
                    return f(xx, seed=seed, proj=proj, out=out)
                if graph:
                    rep = _graph(torch, fn, warm=1)
                    out.fill_(float("nan"))  # the replay must write it again
                    torch.cuda.synchronize()
                    return rep
                return fn
            return build

        note = "generated in-kernel from the seed (= philox(seed))"
        add(Variant(pipeline, "aot", note, False, build_aot()))
        add(Variant(f"{pipeline}+graph", "aot", note, False, build_aot(graph=True)))

    # the reference of eager-randn's own A (only if that variant runs)
    if any(v.reference == "randn" for v in variants):
        try:
            g2 = torch.Generator(device=dev).manual_seed(seed)
            A_r = torch_eager.make_projection(D, S, generator=g2, device=dev)
            tr = time.time()
            refs["randn"] = reference_loss(x64, A_r.double().cpu().numpy(), P, T_MAX, threads=args.threads)
            cfg["reference"]["loss_randn_A"] = refs["randn"]
            print(f"   reference loss with eager-randn's A {refs['randn']:.8g} ({time.time() - tr:.1f} s)", flush=True)
            del A_r
        except Exception as e:  # noqa: BLE001
            print(f"   reference for eager-randn failed: {e}", flush=True)

    model = cfg["model"]
    slow: Dict[str, float] = {}
    with torch.no_grad():
        for v in variants:
            rec: Dict[str, Any] = OrderedDict(name=v.name, group=v.group, A=v.A, status=None, ms=None, loss=None,
                                              rel_err=None)
            fn = None
            try:
                base = v.name.split("+")[0]
                if v.name.endswith("+graph") and base in slow:
                    raise RuntimeError(f"SKIP: {base} takes {slow[base]:.2f} s a call; a graph replay adds nothing")
                tb = time.time()
                fn = v.build()
                rec["build_s"] = time.time() - tb
                tc = time.time()
                res = fn()
                torch.cuda.synchronize()
                call_s = time.time() - tc
                loss = float(res.float().reshape(-1)[0].item()) if res.numel() == 1 else float("nan")
                del res
                if call_s > SLOW_CALL_S:  # the first call may include lazy initialization: time a second one
                    tc = time.time()
                    fn()
                    torch.cuda.synchronize()
                    call_s = time.time() - tc
                rec["loss"] = loss
                expected = refs.get(v.reference)
                if expected is None:
                    raise RuntimeError(f"no reference for {v.reference}")
                rel = abs(loss - expected) / abs(expected) if math.isfinite(loss) else float("nan")
                rec["rel_err"] = rel
                if v.group == "aot" and v.name.split("+")[0] in aot_funcs:
                    f = aot_funcs[v.name.split("+")[0]]
                    rec["launches"] = f.num_launches
                    rec["regions"] = [r["region"] for r in f.regions()]
                if not (math.isfinite(rel) and rel <= tol):
                    rec["status"] = "WRONG"
                else:
                    if call_s > SLOW_CALL_S:
                        # a very slow variant (the naive path at the large shape): 3 event-timed runs
                        slow[base] = call_s
                        rec["ms"] = bench.ms_few(fn, 3)
                        rec["timing"] = "median of 3 runs (slow variant)"
                    else:
                        rec["ms"] = bench.ms(fn)
                    rec["status"] = "ok"
                    nbytes = model["bytes_min_with_A"] if v.reads_A else model["bytes_min_without_A"]
                    rec["bytes"] = nbytes
                    rec["ai"] = model["flops"] / nbytes
                    rec["gflops"] = model["flops"] / (rec["ms"] * 1e-3) / 1e9
            except Exception as e:  # noqa: BLE001
                msg = f"{type(e).__name__}: {e}"
                if msg.split(": ", 1)[-1].startswith("SKIP: "):
                    rec["status"] = "SKIP"
                    rec["error"] = msg.split("SKIP: ", 1)[1]
                else:
                    rec["status"] = "ERROR"
                    rec["error"] = msg
                    traceback.print_exc()
                try:
                    torch.cuda.synchronize()
                except Exception:  # noqa: BLE001
                    pass
            ms_txt = f"{rec['ms']:.4f} ms" if rec["ms"] else "-"
            err_txt = f" rel_err={rec['rel_err']:.2e}" if rec["rel_err"] is not None else ""
            print(f"   {v.name:<16} {rec['status']:<6} {ms_txt}{err_txt}"
                  f"{'  ' + rec['error'].splitlines()[0][:120] if rec.get('error') else ''}", flush=True)
            cfg["variants"].append(rec)
            del fn

        # ---- floors
        try:
            Ad = A.to(tdtype)
            x3 = x if x.dim() == 3 else x.unsqueeze(0)
            cfg["floors"]["cuBLAS GEMM x@A"] = bench.ms(lambda: torch.matmul(x3, Ad))
            gf = torch.Generator(device=dev)

            def randn_norm():
                gf.manual_seed(seed)
                return torch_eager.make_projection(D, S, generator=gf, device=dev)

            cfg["floors"]["randn+normalize"] = bench.ms(randn_norm)
        except Exception as e:  # noqa: BLE001
            cfg["floors"]["error"] = f"{type(e).__name__}: {e}"

    speedups(cfg["variants"])
    cfg["seconds"] = time.time() - t0
    aot_funcs.clear()
    torch.cuda.empty_cache()
    return cfg


def _versions(torch) -> Dict[str, Any]:
    out = {"python": platform.python_version(), "numpy": np.__version__, "torch": torch.__version__,
           "torch_cuda": getattr(torch.version, "cuda", None)}
    try:
        import triton  # noqa: PLC0415

        out["triton"] = triton.__version__
    except Exception:  # noqa: BLE001
        out["triton"] = None
    try:
        from importlib.metadata import version  # noqa: PLC0415

        out["cuda_bindings"] = version("cuda-bindings")
    except Exception:  # noqa: BLE001
        out["cuda_bindings"] = None
    return out


def _write_json(path: Optional[str], doc) -> None:
    if not path:
        return
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(_clean(doc), f, indent=2)
    os.replace(tmp, path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m sigreg.bench",
                                 description="All SIGReg variants in one process on the same inputs (GPU).")
    ap.add_argument("--configs", default=",".join(CONFIGS), help="comma list of " + ",".join(CONFIGS))
    ap.add_argument("--dtype", default="bf16", choices=sorted(DTYPE_BYTES))
    ap.add_argument("--artifacts", default=None,
                    help="directory of AOT artifacts: DIR/<config>-<dtype>/{naive,fused} "
                         "(scripts/build-gpu-artifacts.sh BUILD DIR anchors)")
    ap.add_argument("--json", default=None, help="write the results here (rewritten after each configuration)")
    ap.add_argument("--plot", default=None, help="write variants-<config>.png and roofline-<config>.png here")
    ap.add_argument("--quick", action="store_true", help="short timing (warmup 10 ms, rep 40 ms), smaller copy test")
    ap.add_argument("--warmup", type=float, default=None, help="do_bench warmup in ms (default 25; quick 10)")
    ap.add_argument("--rep", type=float, default=None, help="do_bench rep in ms (default 100; quick 40)")
    ap.add_argument("--variants", default=None, help="comma list of variants to run (default: all)")
    ap.add_argument("--seed", type=int, default=1234, help="projection seed (artifacts and philox A)")
    ap.add_argument("--input-seed", type=int, default=42, help="seed of x")
    ap.add_argument("--threads", type=int, default=None, help="CPU threads for the float64 reference")
    ap.add_argument("--no-ceilings", action="store_true", help="skip the launch/copy/GEMM ceilings")
    ap.add_argument("--shape", action="append", default=[], metavar="NAME=V,N,D,S,P",
                    help="an extra configuration (repeatable; V=1 means x is [N, D]), run after "
                         "--configs; artifacts DIR/NAME-<dtype>/...")
    args = ap.parse_args(argv)

    names = [c.strip() for c in args.configs.split(",") if c.strip()]
    unknown = [c for c in names if c not in CONFIGS]
    if unknown:
        ap.error(f"unknown configuration(s) {unknown}; known: {list(CONFIGS)}")
    configs = OrderedDict((n, CONFIGS[n]) for n in names)
    for spec in args.shape:
        name, _, dims = spec.partition("=")
        try:
            parsed = tuple(int(v) for v in dims.split(","))
        except ValueError:
            parsed = ()
        if not name or len(parsed) != 5 or min(parsed) < 1 or parsed[4] < 3 or parsed[4] % 2 == 0:
            ap.error(f"--shape {spec!r}: expected NAME=V,N,D,S,P with positive sizes and P odd >= 3")
        if name in configs:
            ap.error(f"--shape {spec!r}: configuration {name!r} given twice")
        configs[name] = parsed

    import torch  # noqa: PLC0415

    if not torch.cuda.is_available():
        print("error: torch sees no CUDA device", file=sys.stderr)
        return 3
    torch.cuda.init()
    warmup = args.warmup if args.warmup is not None else (10.0 if args.quick else 25.0)
    rep = args.rep if args.rep is not None else (40.0 if args.quick else 100.0)
    bench = _Bench(torch, warmup, rep)
    props = torch.cuda.get_device_properties(0)
    doc: Dict[str, Any] = OrderedDict(
        date=datetime.datetime.now().isoformat(timespec="seconds"),
        command=" ".join([os.path.basename(sys.executable), "-m", "sigreg.bench"] + list(sys.argv[1:] if argv is None
                                                                                           else argv)),
        device=dict(name=props.name, sms=props.multi_processor_count, memory_bytes=props.total_memory),
        versions=_versions(torch),
        timing=dict(method="triton.testing.do_bench median (L2 flushed before every run)" if bench.tt else
                    "CUDA events median (L2 flushed before every run)", warmup_ms=warmup, rep_ms=rep),
        ceilings={}, configs=OrderedDict())
    print(f"device {props.name}; torch {torch.__version__}; triton {doc['versions']['triton']}; "
          f"cuda-bindings {doc['versions']['cuda_bindings']}; do_bench warmup={warmup} ms rep={rep} ms", flush=True)
    if not args.no_ceilings:
        doc["ceilings"] = measure_ceilings(torch, bench, args.quick)
        c = doc["ceilings"]
        print("ceilings: " + "; ".join([
            f"empty launch {c['empty_launch_us']:.2f} us" if "empty_launch_us" in c else "empty launch n/a",
            f"graph-replayed {c['empty_launch_graph_us']:.2f} us" if "empty_launch_graph_us" in c else "",
            f"D2D copy {c['copy_bytes_per_s'] / 1e12:.2f} TB/s" if "copy_bytes_per_s" in c else "copy n/a",
            f"bf16 GEMM {c['gemm_bf16_flops_per_s'] / 1e12:.0f} TFLOP/s" if "gemm_bf16_flops_per_s" in c
            else "GEMM n/a"]), flush=True)
        _write_json(args.json, doc)
    for name, dims in configs.items():
        try:
            cfg = run_config(torch, bench, name, dims, args, doc["ceilings"])
        except Exception as e:  # noqa: BLE001 (keep going with the other configurations)
            traceback.print_exc()
            doc["configs"][name] = {"name": name, "error": f"{type(e).__name__}: {e}"}
            _write_json(args.json, doc)
            continue
        doc["configs"][name] = cfg
        print(format_table(cfg), flush=True)
        _write_json(args.json, doc)
        if args.plot:
            _try_plot(cfg, doc["ceilings"], args.plot)
    if args.json:
        print(f"\nwrote {args.json}", flush=True)
    wrong = [(c, v["name"]) for c, cfg in doc["configs"].items() for v in cfg.get("variants", [])
             if v.get("status") == "WRONG"]
    if wrong:
        print("WRONG results: " + ", ".join(f"{c}/{n}" for c, n in wrong), flush=True)
    return 1 if wrong else 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
