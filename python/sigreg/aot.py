"""Run compiled artifacts from Python and check them against the float64 reference.

``sigreg.aot`` runs artifacts (docs/AOT.md) only through the runtime's C ABI (``sigreg.capi``):
the manifest is read by the runtime's reader, the steps are run by its executor.
:class:`AotFunction` is :class:`sigreg.capi.CapiFunction` under the name this module always had.

Command line (GPU): ``python -m sigreg.aot ARTIFACT_DIR... [--seed N] [--input-seed N] [--runs N]``
runs each loss artifact on fresh random inputs (x ~ N(0, 1) rounded to the problem's dtype; for
an explicit projection, A = ``philox.projection(seed, D, S)``) and checks the result against the
float64 reference (``sigreg.reference``; tolerance 1e-4 for f32 inputs, 2e-3 for bf16/f16) and
that ``--runs`` runs agree bitwise. Gradients and the DDP entry points are validated by
``sigreg-aot-run``. Exit status 0 when every artifact passes, 1 when one fails the check, 2 when
one cannot be run (the runtime's message is printed).
"""

from __future__ import annotations

from typing import Optional

from .capi import Artifact, CapiError, CapiFunction, ManifestError, Problem, describe

__all__ = ["AotFunction", "Artifact", "CapiError", "ManifestError", "Problem", "describe", "main"]


class AotFunction(CapiFunction):
    """``AotFunction(DIR, device=None)(x, seed=..., proj=..., out=...)``: see
    :class:`sigreg.capi.CapiFunction` (``device``: default torch's current device)."""

    def __init__(self, artifact_dir: str, device=None):
        import torch  # noqa: PLC0415 (lazy on purpose)

        super().__init__(artifact_dir, device)
        self.device = torch.device("cuda", self.device_index)
        self.x_dtype = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[self.problem.dtype]
        self.out_name = self.info.output


def _reference_for(problem: Problem, x64, A64):
    from . import reference as ref

    T = ref.statistics(x64, A64, num_points=problem.P, t_max=problem.t_max, clip_mode=problem.clip,
                       clip_value=problem.clip_value)
    if problem.reduction == "mean":
        return float(T.mean())
    if problem.reduction == "sum":
        return float(T.sum())
    return T


def _runnable(info: Artifact) -> Optional[str]:
    """Why this command does not validate the artifact, or None."""
    if info.conventions_error is not None:
        return info.conventions_error
    p = info.problem
    if p.entry_point:
        return f"the {p.entry_point} entry point is not a loss (validate it with sigreg-aot-run)"
    if p.gradient:
        return "a gradient artifact (validate it with sigreg-aot-run)"
    return None


def _describe_lines(info: Artifact):
    p = info.problem
    yield (f"{info.path}: pipeline={info.pipeline!r} V={p.V} N={p.N} D={p.D} S={p.S} P={p.P} {p.dtype} "
           f"{p.projection} {p.reduction} clip={p.clip}, {len(info.steps)} steps, {info.num_launches()} launches")
    for region, idx in info.regions().items():
        kernels = [info.steps[i].kernel for i in idx if info.steps[i].op == "launch"]
        yield f"  region {region:<24} launches={len(kernels)} kernels={','.join(kernels)}"


def _validate(artifact: str, args) -> int:
    import numpy as np

    from . import philox

    try:
        info = describe(artifact)
    except CapiError as e:  # ManifestError too, and a missing library
        print(f"error: {e}")
        return 2
    why = _runnable(info)
    if why:
        print(f"error: {artifact}: {why}")
        return 2
    for line in _describe_lines(info):
        print(line)
    import torch

    try:
        f = AotFunction(artifact)
    except CapiError as e:
        print(f"error: {e}")
        return 2
    p = f.problem
    g = torch.Generator(device=f.device).manual_seed(args.input_seed)
    x = torch.randn(p.x_shape(), generator=g, device=f.device, dtype=torch.float32).to(f.x_dtype)
    proj = None
    if p.projection == "explicit":
        proj = torch.from_numpy(philox.projection(args.seed, p.D, p.S)).to(f.device).to(f.x_dtype)
        A64 = proj.double().cpu().numpy()
    else:
        A64 = philox.projection_f64(args.seed, p.D, p.S)
    x64 = x.double().cpu().numpy()
    expected = np.asarray(_reference_for(p, x64, A64), dtype=np.float64)
    results = []
    try:
        for _ in range(max(1, args.runs)):
            out = torch.full(p.out_shape(), float("nan"), dtype=torch.float32, device=f.device)  # poisoned
            f(x, seed=args.seed, proj=proj, out=out)
            torch.cuda.synchronize(f.device)
            results.append(out.cpu().numpy().astype(np.float64))
    except CapiError as e:
        print(f"error: {e}")
        return 2
    finally:
        f.close()
    got = results[0]
    tol = 1e-4 if p.dtype == "f32" else 2e-3
    finite = bool(np.all(np.isfinite(got)))
    den = float(np.linalg.norm(expected)) or 1.0
    rel = float(np.linalg.norm(got - expected) / den) if finite else float("nan")
    same = all(np.array_equal(results[0], r) for r in results[1:])
    ok = finite and rel <= tol and same
    print(f"loss={got.ravel()[:4]} reference={expected.ravel()[:4]} rel_err={rel:.3e} tol={tol:.0e} "
          f"bitwise_repeatable={same}")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m sigreg.aot", description=__doc__.split("\n")[0])
    ap.add_argument("artifacts", nargs="+", metavar="artifact", help="artifact directory (manifest.json + PTX)")
    ap.add_argument("--seed", type=int, default=1234, help="projection seed")
    ap.add_argument("--input-seed", type=int, default=42)
    ap.add_argument("--runs", type=int, default=3, help="runs that must agree bitwise")
    args = ap.parse_args(argv)
    return max(_validate(a, args) for a in args.artifacts)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
