#!/usr/bin/env python3
"""GPU correctness check of the kernels-ref references against the float64 NumPy reference.

    python3 kernels-ref/test_kernels_gpu.py            # everything (anchor shapes included)
    python3 kernels-ref/test_kernels_gpu.py --quick    # skip the 'large' anchor shape
    PYTHONPATH=python python3 kernels-ref/test_kernels_gpu.py

Fresh random inputs every run (the base seed is printed; --seed reproduces a run),
never zeros. For each case, x (bf16 or f32) and A are fixed once; the reference
(python/sigreg/reference.py) runs in float64 on exactly those values: x as
rounded to its dtype, and A as the GEMM sees it (cast to x's dtype). Tolerances
are those of docs/CONTRACT.md section 5: relative error 1e-4 (f32), 2e-3 (bf16).

Checks, each printing one PASS/FAIL line:
  e2e      eager and triton loss (mean / sum) vs reference, clip modes included;
           reduction='none' (relative L2 over T) for f32 inputs.
  kernels  the two Triton kernels on the GEMM's own output y vs the reference
           evaluated on that y (isolates the kernels from the bf16 rounding of y):
           relative L2 over T <= 1e-4 for both dtypes; outputs are NaN-poisoned
           first and every element must be written; a second run must be
           bitwise identical.
  ddp      simulated 2-rank all-reduce (shards of one batch) vs reference.
Exit status is non-zero when any check fails.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
for p in (HERE, os.path.join(REPO, "python")):
    if p not in sys.path:
        sys.path.insert(0, p)

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch_eager  # noqa: E402
import triton_kernels  # noqa: E402

from sigreg import philox  # noqa: E402
from sigreg import reference as ref  # noqa: E402

TOL = {torch.float32: 1e-4, torch.bfloat16: 2e-3}
DTYPE_NAME = {torch.float32: "f32", torch.bfloat16: "bf16"}
KERNEL_TOL = 1e-4

# name, V, N, D, S, P, t_max (V=0 means x is [N, D] without a view dim)
SHAPES = [
    ("ragged", 3, 37, 129, 77, 9, 3.0),
    ("ragged-P3", 1, 37, 129, 77, 3, 2.0),
    ("ragged-P33", 2, 33, 65, 31, 33, 5.0),
    ("2d-input", 0, 51, 31, 45, 17, 3.0),
    ("blog", 1, 32, 2048, 1024, 17, 3.0),
    ("minimal", 4, 256, 16, 256, 17, 3.0),
    ("mid", 1, 1024, 1024, 1024, 17, 3.0),
    ("large", 1, 8192, 4096, 4096, 17, 3.0),
]
SMALL = {"ragged", "ragged-P3", "ragged-P33", "2d-input"}


class Results:
    def __init__(self):
        self.passed = 0
        self.failed = []

    def check(self, label: str, err: float, tol: float, extra: str = ""):
        ok = bool(np.isfinite(err)) and err <= tol
        status = "PASS" if ok else "FAIL"
        print(f"{status}  {label:<58} rel={err:.3e} tol={tol:.0e} {extra}", flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed.append(label)
        return ok

    def fail(self, label: str, why: str):
        print(f"FAIL  {label:<58} {why}", flush=True)
        self.failed.append(label)

    def ok(self, label: str, what: str):
        print(f"PASS  {label:<58} {what}", flush=True)
        self.passed += 1


def rel_err(got, exp) -> float:
    got = np.asarray(got, dtype=np.float64)
    exp = np.asarray(exp, dtype=np.float64)
    if got.shape != exp.shape:
        return float("inf")
    if not np.all(np.isfinite(got)):
        return float("nan")
    den = np.linalg.norm(exp)
    return float(np.linalg.norm(got - exp) / (den if den > 0 else 1.0))


def reduce_np(T, reduction):
    return T.mean() if reduction == "mean" else T.sum() if reduction == "sum" else T


def clip_np(T, mode, cv):
    if mode == "zero_below":
        return np.where(T < cv, 0.0, T)
    if mode == "clamp_min":
        return np.where(T < cv, cv, T)
    return T


def pick_clip(T, tol):
    """Clip value in the widest gap among the middle values of T; None if the gap is too narrow."""
    v = np.sort(np.ravel(T))
    if v.size < 4:
        return None
    lo, hi = v.size // 4, 3 * v.size // 4
    i = lo + int(np.argmax(np.diff(v[lo:hi + 1])))
    cv = 0.5 * (v[i] + v[i + 1])
    margin = 0.5 * (v[i + 1] - v[i]) / max(abs(cv), 1e-30)
    return cv if margin > 20 * tol else None


def make_inputs(V, N, D, S, dtype, gen, seed):
    shape = (N, D) if V == 0 else (V, N, D)
    # non-zero, slightly non-isotropic data: scaled Gaussian plus a per-feature shift
    x = torch.randn(shape, generator=gen, dtype=torch.float64) * 0.9
    x += 0.1 * torch.randn((D,), generator=gen, dtype=torch.float64)
    x = x.to(dtype)
    if D * S <= 300_000:  # the project's own generator (bit-exact NumPy), normalized in f32
        A = torch.from_numpy(philox.projection(seed, D, S))
        src = f"philox(seed={seed})"
    else:  # the eager path's generator: randn + normalize
        A = torch_eager.make_projection(D, S, generator=gen)
        src = "torch.randn+normalize"
    return x.cuda(), A.cuda(), src


def run_case(res: Results, name, V, N, D, S, P, t_max, dtype, gen, seed):
    tag = f"{name}[V={V},N={N},D={D},S={S},P={P}] {DTYPE_NAME[dtype]}"
    tol = TOL[dtype]
    x, A, src = make_inputs(V, N, D, S, dtype, gen, seed)
    A_gemm = A.to(dtype)  # what the GEMM multiplies with
    x64 = x.double().cpu().numpy()
    A64 = A_gemm.double().cpu().numpy()
    t0 = time.time()
    T_ref = ref.statistics(x64, A64, num_points=P, t_max=t_max)  # [S] or [V, S], float64
    print(f"      {tag}: A from {src}; reference {time.time() - t0:.1f}s", flush=True)
    small = name in SMALL
    t, phi, w = triton_kernels.integration_tensors(P, t_max, x.device)
    kw = dict(num_points=P, t_max=t_max)

    # ---- end to end: eager and triton
    variants = [("none", "mean"), ("none", "sum")]
    if small or name in ("blog", "minimal"):
        variants += [("zero_below", "mean"), ("clamp_min", "mean")]
        if dtype == torch.float32:
            variants += [("none", "none"), ("zero_below", "none"), ("clamp_min", "sum")]
    for impl in ("eager", "triton"):
        for clip_mode, reduction in variants:
            label = f"e2e {impl:<6} {tag} clip={clip_mode} red={reduction}"
            try:
                cv = 0.0
                if clip_mode != "none":
                    cv = pick_clip(T_ref, tol)
                    if cv is None:
                        print(f"SKIP  {label:<58} (no clip value with a safe margin)")
                        continue
                exp = reduce_np(clip_np(T_ref, clip_mode, cv), reduction)
                args = dict(kw, clip_mode=clip_mode, clip_value=float(cv), reduction=reduction)
                if impl == "eager":
                    got = torch_eager.sigreg_eager(x, A, **args)
                else:
                    got = triton_kernels.sigreg_triton(x, A, **args)
                torch.cuda.synchronize()
                res.check(label, rel_err(got.double().cpu().numpy(), exp), tol)
            except Exception as e:  # noqa: BLE001
                traceback.print_exc()
                res.fail(label, f"exception {type(e).__name__}: {e}")

    # ---- kernel level: the two Triton kernels on the GEMM's own y
    configs = [("blk32", dict(block_s=32, num_warps=4))]
    if small:
        configs.append(("warp-per-slice", dict(block_s=1, num_warps=1)))
        configs.append(("blk16-chunk7", dict(block_s=16, chunk_n=7, num_warps=2)))
    y = triton_kernels.project(x, A)  # [V', N, S] in x's dtype
    torch.cuda.synchronize()
    t0 = time.time()
    y64 = y.double().cpu().numpy()
    T_y = ref.statistics_from_projected(y64, num_points=P, t_max=t_max)  # [V', S]
    Vp = y.shape[0]
    for cname, ckw in configs:
        label = f"kernels {cname:<14} {tag}"
        try:
            outs = []
            for _rep in range(2):
                cos_m = torch.full((Vp, S, P), float("nan"), device=x.device)
                sin_m = torch.full((Vp, S, P), float("nan"), device=x.device)
                stats = torch.full((Vp, S), float("nan"), device=x.device)
                triton_kernels.trig_reduce(y, t, out=(cos_m, sin_m), **ckw)
                triton_kernels.epilogue(cos_m, sin_m, phi, w, y.shape[1], out=stats)
                torch.cuda.synchronize()
                outs.append((cos_m.clone(), sin_m.clone(), stats.clone()))
            cos_m, sin_m, stats = outs[0]
            if not (torch.isfinite(cos_m).all() and torch.isfinite(sin_m).all() and torch.isfinite(stats).all()):
                res.fail(label, "unwritten (NaN-poisoned) or non-finite output elements")
                continue
            same = all(torch.equal(a, b) for a, b in zip(outs[0], outs[1]))
            ok = res.check(label, rel_err(stats.double().cpu().numpy(), T_y), KERNEL_TOL,
                           "deterministic" if same else "NOT DETERMINISTIC")
            if ok and not same:
                res.fail(label + " determinism", "second run differs bitwise")
        except Exception as e:  # noqa: BLE001
            traceback.print_exc()
            res.fail(label, f"exception {type(e).__name__}: {e}")
    # clip modes inside the epilogue kernel, exact gating on the reference's side of a safe gap
    for clip_mode in ("zero_below", "clamp_min"):
        label = f"kernels epilogue-{clip_mode:<10} {tag}"
        try:
            cv = pick_clip(T_y, KERNEL_TOL)
            if cv is None:
                print(f"SKIP  {label:<58} (no clip value with a safe margin)")
                continue
            cos_m, sin_m = triton_kernels.trig_reduce(y, t)
            stats = triton_kernels.epilogue(cos_m, sin_m, phi, w, y.shape[1], clip_mode, cv)
            torch.cuda.synchronize()
            res.check(label, rel_err(stats.double().cpu().numpy(), clip_np(T_y, clip_mode, cv)), KERNEL_TOL)
        except Exception as e:  # noqa: BLE001
            traceback.print_exc()
            res.fail(label, f"exception {type(e).__name__}: {e}")
    print(f"      {tag}: kernel-level reference {time.time() - t0:.1f}s", flush=True)


def run_ddp_case(res: Results, gen, seed, dtype):
    """Two simulated ranks: per-shard GEMM + trig kernel, mean of the ECFs, epilogue with N_global."""
    V, N, D, S, P, W = 2, 19, 129, 77, 9, 2
    tag = f"ddp W={W} [V={V},N={N}/rank,D={D},S={S},P={P}] {DTYPE_NAME[dtype]}"
    try:
        x, A, _ = make_inputs(V, N * W, D, S, dtype, gen, seed)
        shards = [x[:, r * N:(r + 1) * N] for r in range(W)]
        t, phi, w = triton_kernels.integration_tensors(P, 3.0, x.device)
        ecfs = [triton_kernels.ecf_triton(sh, A, t) for sh in shards]
        cos_m = sum(e[0] for e in ecfs) / W   # the all-reduce mean
        sin_m = sum(e[1] for e in ecfs) / W
        stats = triton_kernels.epilogue(cos_m, sin_m, phi, w, N * W)
        loss = stats.mean()
        torch.cuda.synchronize()
        A64 = A.to(dtype).double().cpu().numpy()
        exp_shards = ref.loss([s.double().cpu().numpy() for s in shards], A64, num_points=P)
        exp_big = ref.loss(x.double().cpu().numpy(), A64, num_points=P)
        assert abs(exp_shards - exp_big) <= 1e-12 * abs(exp_big)
        res.check("ddp triton " + tag, rel_err(loss.double().cpu().numpy(), exp_shards), TOL[dtype])

        def fake_all_reduce(z):  # every rank holds identical statistics
            return z
        got = triton_kernels.sigreg_triton(shards[0], A, num_points=P, world_size=W, all_reduce=fake_all_reduce)
        got_e = torch_eager.sigreg_eager(shards[0], A, num_points=P, world_size=W, all_reduce=fake_all_reduce)
        exp_ws = ref.loss(shards[0].double().cpu().numpy(), A64, num_points=P, world_size=W)
        res.check("ddp world_size triton " + tag, rel_err(got.double().cpu().numpy(), exp_ws), TOL[dtype])
        res.check("ddp world_size eager  " + tag, rel_err(got_e.double().cpu().numpy(), exp_ws), TOL[dtype])
    except Exception as e:  # noqa: BLE001
        traceback.print_exc()
        res.fail("ddp " + tag, f"exception {type(e).__name__}: {e}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="skip the 'large' anchor shape")
    ap.add_argument("--seed", type=int, default=None, help="base seed (default: fresh)")
    ap.add_argument("--only", default=None, help="comma-separated shape names")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("FAIL  no CUDA device")
        return 1
    # f32 GEMMs in full f32 (no TF32) so the f32 tolerance applies
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    print(f"device: {torch.cuda.get_device_name()}  torch {torch.__version__}  "
          f"triton {triton_kernels.triton.__version__}  numpy {np.__version__}  base seed {seed}", flush=True)
    gen = torch.Generator().manual_seed(seed)
    res = Results()
    names = set(args.only.split(",")) if args.only else None
    t_all = time.time()
    for i, (name, V, N, D, S, P, t_max) in enumerate(SHAPES):
        if names is not None and name not in names:
            continue
        if args.quick and name == "large":
            continue
        for dtype in (torch.float32, torch.bfloat16):
            run_case(res, name, V, N, D, S, P, t_max, dtype, gen, seed + 1000 * i + (dtype == torch.bfloat16))
    if names is None:
        for dtype in (torch.float32, torch.bfloat16):
            run_ddp_case(res, gen, seed + 77, dtype)
    n_fail = len(res.failed)
    print(f"\n{res.passed} passed, {n_fail} failed  ({time.time() - t_all:.1f}s, base seed {seed})")
    if n_fail:
        print("FAILED:")
        for f in res.failed:
            print("  " + f)
        print("RESULT: FAIL")
        return 1
    print("RESULT: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
