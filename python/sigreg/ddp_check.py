"""SIGReg under DDP on several GPUs (NCCL): correctness and speed (issue 12; docs/TORCH.md).

Run with ``torchrun --nproc_per_node=W -m sigreg.ddp_check [--out DIR] [--quick]``
(``scripts/ddp-check.sh`` does it). Every rank builds the same full batch from a fixed
generator and takes its shard of rows.

Correctness, for bf16 and f32, with and without views, every clip mode and reduction:
- the ``sigreg.torch`` loss on every rank equals the single-process loss on the full batch;
- each rank's gradient is ``W`` times the full-batch gradient of its rows (docs/CONTRACT.md
  section 3);
- both equal a LeJEPA-style eager implementation run through
  ``torch.distributed.nn.functional.all_reduce`` on the same shard and projection.

Speed: forward+backward per rank at per-rank blog, mid and large shapes, for ``sigreg.torch``,
the eager implementation and ``torch.compile`` of it, under the same process group (CUDA events,
median), plus the time of the ``[V, S, P]`` all-reduce alone.

``--compiled``: the ``SIGReg`` module with ``backend="compiled"`` (the compiler's split entry
points, loaded through the C ABI on each rank's own device, cuda:LOCAL_RANK) against the same
module with ``backend="torch"`` on the same shard: loss and gradient, bf16, views or not, clip
or not, mean or per-slice. The GPU machine has no compiler: fill a cache here first,
``python -m sigreg.ddp_check --precompile --world W`` with ``SIGREG_CACHE_DIR`` set, and point
``SIGREG_CACHE_DIR`` there on the GPU machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys

import torch
import torch.distributed as dist
from torch.distributed.nn.functional import all_reduce as autograd_all_reduce

from . import torch as st
from . import torch_ref

# (loss, gradient) tolerances: docs/CONTRACT.md section 5 against float64. The LeJEPA-style
# eager module rounds y = x @ A to bf16 (its GEMM runs in the input dtype), which costs it up
# to about 5e-3 per slice: against it, bf16 losses are held to the gradient tolerance.
TOL = {torch.float32: (1e-4, 1e-3), torch.bfloat16: (2e-3, 1e-2)}
EAGER_LOSS_TOL = {torch.float32: 1e-4, torch.bfloat16: 1e-2}
SPEED_SHAPES = {  # per-rank (V, N, D, S), P = 17
    "blog": (1, 32, 2048, 1024),
    "mid": (1, 1024, 1024, 1024),
    "large": (1, 8192, 4096, 4096),
}


def _rel(a: torch.Tensor, b: torch.Tensor) -> float:
    a = a.double()
    b = b.double()
    return float((a - b).norm() / b.norm().clamp_min(1e-300))


def correctness(rank: int, world: int, device, quick: bool):
    rows = []
    cases = []
    for dtype in (torch.float32, torch.bfloat16):
        for views in (False, True):
            for clip in (None, "zero_below", "clamp_min"):
                for reduction in ("mean", "sum", "none"):
                    cases.append((dtype, views, clip, reduction))
    if quick:
        cases = cases[::5]
    for dtype, views, clip, reduction in cases:
        g = torch.Generator().manual_seed(1234)
        n_local, D, S = 96, 64, 48
        shape = (2, n_local * world, D) if views else (n_local * world, D)
        x_full = torch.randn(shape, generator=g).to(dtype).to(device)
        A = st.projection(77, D, S, device=device)
        knobs = dict(clip_value=None if clip is None else 0.9, clip_mode=clip or "zero_below",
                     reduction=reduction)
        sl = slice(rank * n_local, (rank + 1) * n_local)
        shard = x_full[..., sl, :].clone().requires_grad_()
        loss = st.sigreg_loss(shard, A, **knobs)
        loss.sum().backward()
        # Single process, full batch (no collective).
        xf = x_full.clone().requires_grad_()
        full = st.sigreg_loss(xf, A, distributed=False, **knobs)
        full.sum().backward()
        # Accuracy: the same full batch in float64 (the inputs as rounded to dtype).
        f64 = st.sigreg_loss(x_full.double(), A.double(), distributed=False, **knobs)
        want_grad = world * xf.grad[..., sl, :]
        # LeJEPA-style eager through the autograd-aware all-reduce.
        shard2 = shard.detach().clone().requires_grad_()
        ref = torch_ref.sigreg_eager(shard2, A, clip_mode="none" if clip is None else clip,
                                     clip_value=0.0 if clip is None else 0.9, reduction=reduction,
                                     world_size=world,
                                     all_reduce=lambda t: autograd_all_reduce(t) / world)
        ref.sum().backward()
        tl, tg = TOL[dtype]
        row = dict(rank=rank, dtype=str(dtype).replace("torch.", ""), views=views,
                   clip=clip or "none", reduction=reduction,
                   loss_vs_f64=_rel(loss.detach(), f64.detach()),
                   loss_vs_full=_rel(loss.detach().float(), full.detach().float()),
                   grad_vs_convention=_rel(shard.grad.float(), want_grad.float()),
                   loss_vs_eager=_rel(loss.detach().float(), ref.detach().float()),
                   grad_vs_eager=_rel(shard.grad.float(), shard2.grad.float()))
        row["pass"] = (row["loss_vs_f64"] <= tl and row["loss_vs_full"] <= tl
                       and row["loss_vs_eager"] <= EAGER_LOSS_TOL[dtype]
                       and row["grad_vs_convention"] <= tg and row["grad_vs_eager"] <= tg)
        rows.append(row)
    return rows


# The compiled backend's cases: (views, clip, reduction), bf16, shard [n, D] or [2, n, D] with
# (n, D, S) = COMPILED_SHAPE; tolerances against the torch backend (bf16: docs/CONTRACT.md).
COMPILED_CASES = [(views, clip, reduction) for views in (False, True)
                  for clip in (None, "zero_below") for reduction in ("mean", "none")]
COMPILED_SHAPE = (96, 64, 48)


def _compiled_knobs(clip, reduction):
    return dict(num_slices=COMPILED_SHAPE[2], n_points=17,
                clip_value=None if clip is None else 0.9, clip_mode=clip or "zero_below",
                reduction=reduction)


def precompile(world: int):
    """Compiles every artifact the --compiled cases may run on a rank's shard (into
    ``$SIGREG_CACHE_DIR``); no GPU needed."""
    n, D, S = COMPILED_SHAPE
    dirs = []
    for views, clip, reduction in COMPILED_CASES:
        knobs = _compiled_knobs(clip, reduction)
        dirs += st.precompile((2, n, D) if views else (n, D), torch.bfloat16, S,
                              num_points=17, clip_value=knobs["clip_value"],
                              clip_mode=knobs["clip_mode"], reduction=reduction)
    print(f"ddp_check: {len(dirs)} artifacts for world size {world} (the shard shapes do not "
          f"depend on it)")


def compiled(rank: int, world: int, device):
    """--compiled: the compiled backend against the torch backend, per rank (see the module
    docstring)."""
    rows = []
    n, D, S = COMPILED_SHAPE
    for views, clip, reduction in COMPILED_CASES:
        g = torch.Generator().manual_seed(4321)
        shape = (2, n * world, D) if views else (n * world, D)
        x_full = torch.randn(shape, generator=g).to(torch.bfloat16).to(device)
        sl = slice(rank * n, (rank + 1) * n)
        row = dict(rank=rank, views=views, clip=clip or "none", reduction=reduction)
        got = {}
        try:
            for backend in ("compiled", "torch"):
                m = st.SIGReg(backend=backend, **_compiled_knobs(clip, reduction)).to(device)
                shard = x_full[..., sl, :].clone().requires_grad_()
                loss = m(shard)
                loss.sum().backward()
                got[backend] = (loss.detach(), shard.grad, int(m.global_step))
        except Exception as e:  # noqa: BLE001 (report the case, go on with the others)
            row.update({"error": f"{type(e).__name__}: {e}"[:300], "pass": False})
            rows.append(row)
            continue
        (lc, gc, sc), (lt, gt, s_t) = got["compiled"], got["torch"]
        row.update(loss_vs_torch=_rel(lc.float(), lt.float()),
                   grad_vs_torch=_rel(gc.float(), gt.float()),
                   on_device=lc.device == device and gc.device == device, steps=(sc, s_t))
        row["pass"] = (row["loss_vs_torch"] <= 2e-3 and row["grad_vs_torch"] <= 1e-2
                       and row["on_device"] and sc == s_t == 1)
        rows.append(row)
    return rows


def _time(fn, reps: int) -> float:
    """Median milliseconds of ``fn`` over ``reps`` runs (CUDA events), all ranks in step."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ms = []
    for _ in range(reps):
        dist.barrier()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        ms.append(start.elapsed_time(end))
    return statistics.median(ms)


def speed(rank: int, world: int, device, quick: bool):
    rows = []
    for name, (V, N, D, S) in SPEED_SHAPES.items():
        if quick and name == "large":
            continue
        g = torch.Generator(device=device).manual_seed(42 + rank)
        shape = (V, N, D) if V > 1 else (N, D)
        x = torch.randn(shape, generator=g, device=device).to(torch.bfloat16).requires_grad_()
        A = st.projection(5, D, S, device=device)

        def ours():
            x.grad = None
            st.sigreg_loss(x, A).backward()

        def eager():
            x.grad = None
            torch_ref.sigreg_eager(x, A, world_size=world,
                                   all_reduce=lambda t: autograd_all_reduce(t) / world).backward()

        compiled_fn = torch.compile(
            lambda v: torch_ref.sigreg_eager(v, A, world_size=world,
                                             all_reduce=lambda t: autograd_all_reduce(t) / world))

        def compiled():
            x.grad = None
            compiled_fn(x).backward()

        buf = torch.zeros((2, V, S, 17), device=device)

        def collective():
            dist.all_reduce(buf)

        reps = 10 if name == "large" else 30
        row = dict(rank=rank, config=name, V=V, N=N, D=D, S=S, P=17, world=world)
        for label, fn in (("sigreg_torch", ours), ("eager", eager), ("compile", compiled),
                          ("all_reduce_VSP", collective)):
            try:
                row[label + "_ms"] = _time(fn, reps)
            except Exception as e:  # noqa: BLE001 (report, do not stop the other variants)
                row[label + "_ms"] = None
                row[label + "_error"] = f"{type(e).__name__}: {e}"[:300]
        rows.append(row)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="directory for ddp-check.json")
    ap.add_argument("--quick", action="store_true", help="a fifth of the cases, no large shape")
    ap.add_argument("--no-speed", action="store_true")
    ap.add_argument("--compiled", action="store_true",
                    help="only the compiled backend against the torch backend, per rank")
    ap.add_argument("--precompile", action="store_true",
                    help="compile the --compiled cases' artifacts into $SIGREG_CACHE_DIR (no GPU)")
    ap.add_argument("--world", type=int, default=2, help="with --precompile: the world size")
    args = ap.parse_args(argv)
    if args.precompile:
        precompile(args.world)
        return 0
    if not torch.cuda.is_available():
        print("ddp_check: no CUDA device", file=sys.stderr)
        return 3
    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    local = int(os.environ.get("LOCAL_RANK", str(rank)))
    torch.cuda.set_device(local)
    device = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=device)
    if args.compiled:
        return _report_compiled(rank, world, device, args.out)
    try:
        rows = correctness(rank, world, device, args.quick)
        speed_rows = [] if args.no_speed else speed(rank, world, device, args.quick)
        gathered = [None] * world
        dist.all_gather_object(gathered, dict(correctness=rows, speed=speed_rows))
    finally:
        dist.destroy_process_group()
    if rank != 0:
        return 0
    all_rows = [r for g in gathered for r in g["correctness"]]
    failed = [r for r in all_rows if not r["pass"]]
    print(f"ddp_check: world size {world}, {torch.cuda.get_device_name(device)}")
    print(f"{'dtype':9} {'views':5} {'clip':10} {'red.':5} {'loss/f64':>10} {'loss/full':>10} {'grad/conv':>10} "
          f"{'loss/eager':>10} {'grad/eager':>10}  rank")
    for r in all_rows:
        print(f"{r['dtype']:9} {str(r['views']):5} {r['clip']:10} {r['reduction']:5} "
              f"{r['loss_vs_f64']:10.2e} {r['loss_vs_full']:10.2e} {r['grad_vs_convention']:10.2e} "
              f"{r['loss_vs_eager']:10.2e} "
              f"{r['grad_vs_eager']:10.2e}  {r['rank']} {'PASS' if r['pass'] else 'FAIL'}")
    print(f"correctness: {len(all_rows) - len(failed)} of {len(all_rows)} checks PASS")
    speed_rows = [r for g in gathered for r in g["speed"]]
    if speed_rows:
        print("forward+backward per rank, bf16, median ms (rank 0 shown; all ranks in the JSON):")
        for r in speed_rows:
            if r["rank"] != 0:
                continue
            fmt = lambda v: "-" if v is None else f"{v:.4f}"  # noqa: E731
            print(f"  {r['config']:6} sigreg.torch {fmt(r['sigreg_torch_ms'])}  eager {fmt(r['eager_ms'])}"
                  f"  compile {fmt(r['compile_ms'])}  all_reduce[V,S,P] {fmt(r['all_reduce_VSP_ms'])}")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "ddp-check.json"), "w") as f:
            json.dump(dict(world=world, correctness=all_rows, speed=speed_rows), f, indent=1)
    return 1 if failed else 0


def _report_compiled(rank: int, world: int, device, out) -> int:
    try:
        rows = compiled(rank, world, device)
        gathered = [None] * world
        dist.all_gather_object(gathered, rows)
    finally:
        dist.destroy_process_group()
    if rank != 0:
        return 0
    rows = [r for g in gathered for r in g]
    print(f"ddp_check --compiled: world size {world}, {torch.cuda.get_device_name(device)}")
    for r in rows:
        if "error" in r:
            print(f"  rank {r['rank']} views {r['views']!s:5} clip {r['clip']:10} {r['reduction']:5} "
                  f"FAIL {r['error']}")
            continue
        print(f"  rank {r['rank']} views {r['views']!s:5} clip {r['clip']:10} {r['reduction']:5} "
              f"loss {r['loss_vs_torch']:.2e} grad {r['grad_vs_torch']:.2e} "
              f"on its device {r['on_device']} steps {r['steps']} {'PASS' if r['pass'] else 'FAIL'}")
    failed = [r for r in rows if not r["pass"]]
    print(f"compiled: {len(rows) - len(failed)} of {len(rows)} checks PASS")
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "ddp-check-compiled.json"), "w") as f:
            json.dump(dict(world=world, compiled=rows), f, indent=1, default=str)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
