"""The compiled backend of ``sigreg.torch`` on the GPU (docs/TORCH.md).

``python -m sigreg.module_check [--traced] [--bench] [--compile] [--train]``:

- for each configuration, the loss and dL/dx of ``sigreg_loss(..., backend="compiled")``
  against the float64 reference (the torch backend on ``x.double()``, the same seeded
  projection), with the tolerances of docs/CONTRACT.md section 5 (loss 2e-3, gradient 1e-2 for
  16-bit inputs), and the same for ``backend="torch"`` in the input's dtype;
- ``--traced``: the compiled backend under ``torch.compile(fullgraph=True)`` against the eager
  call (mid);
- ``--bench``: the median time of one forward + backward (CUDA events around each of 50
  iterations after 10 warm-up ones) of the compiled backend and of the LeJEPA-style eager
  implementation (``sigreg.torch_ref.sigreg_eager``, projection given), each called from
  Python and replayed from a CUDA graph (the device time without the host's overhead);
  ``--compile`` adds ``torch.compile`` of the eager implementation;
- ``--memory`` (first, before the other runs load anything): the peak device memory of the
  first forward + backward above x, torch's allocator and the C runtime's own allocations;
- ``--train``: a small encoder trained 200 steps on synthetic data with the SIGReg loss alone,
  once with each backend from the same initialization: the loss curves and the wall times;
- ``--ops``: the torch ops of ``libsigreg_torch_ops.so`` (``sigreg._ops``) against the ctypes
  path, module calls bitwise; ``--host`` and ``--host-breakdown`` time both paths.

The compiled entry points come from ``sigreg.compile`` (``$SIGREG_CACHE_DIR``; on a machine
without the compiler, artifacts compiled elsewhere into that cache) and run through the C ABI
(``sigreg.capi``, ``$SIGREG_AOT_LIB``).
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time

import torch

from . import _ops
from . import torch as st
from .torch import SIGReg, projection, sigreg_loss
from .torch_ref import sigreg_eager

# name, V (0: x is [N, D]), N, D, S, P, dtype, clip_mode, clip_value, reduction
CONFIGS = [
    ("blog", 0, 32, 2048, 1024, 17, torch.bfloat16, "zero_below", None, "mean"),
    ("minimal", 4, 256, 16, 256, 17, torch.bfloat16, "zero_below", None, "mean"),
    ("mid", 0, 1024, 1024, 1024, 17, torch.bfloat16, "zero_below", None, "mean"),
    ("large", 0, 8192, 4096, 4096, 17, torch.bfloat16, "zero_below", None, "mean"),
    ("views-f16-zero-sum", 3, 37, 136, 72, 9, torch.float16, "zero_below", 0.9, "sum"),
    ("ragged-clamp-none", 2, 300, 200, 104, 5, torch.bfloat16, "clamp_min", 0.5, "none"),
]
SEED = 11
# The training smoke test's SIGReg call: emb [256, 256] bf16 (autocast), 256 slices.
TRAIN_CONFIG = ("train", 0, 256, 256, 256, 17, torch.bfloat16, "zero_below", None, "mean")


def _x(V, N, D, dtype, seed=1):
    g = torch.Generator(device="cuda").manual_seed(seed)
    shape = (V, N, D) if V else (N, D)
    return torch.randn(shape, generator=g, device="cuda").to(dtype)


@contextlib.contextmanager
def _split_only():
    """The compiled backend through the DDP split's two entry points (what traced code and
    torch.distributed run) instead of the whole-loss artifacts a single process takes."""
    saved = st._whole_function
    st._whole_function = lambda *args, **kwargs: None
    try:
        yield
    finally:
        st._whole_function = saved


@contextlib.contextmanager
def _pair_only():
    """The single process's whole-loss path without the step artifact: the loss artifact at
    forward time and the gradient artifact (with its own forward) at backward time."""
    saved = st._whole_function
    st._whole_function = (lambda *args, step=False, phased=False, device_step=False:
                          None if step else saved(*args, device_step=device_step))
    try:
        yield
    finally:
        st._whole_function = saved


@contextlib.contextmanager
def _unphased():
    """The step artifact run whole at forward time (dL/dx in f32, multiplied by the cotangent
    in the backward) instead of the phased one."""
    saved = st._whole_function
    st._whole_function = (lambda *args, step=False, phased=False, device_step=False:
                          None if phased else saved(*args, step=step, device_step=device_step))
    try:
        yield
    finally:
        st._whole_function = saved


def _mode(backend):
    """The context of a check's backend: 'split', 'pair' and 'step' force those paths."""
    return {"split": _split_only, "pair": _pair_only, "step": _unphased}.get(
        backend, contextlib.nullcontext)()


# The two paths of a compiled call: the torch ops of libsigreg_torch_ops.so (sigreg._ops) and
# ctypes. Artifacts loaded in a path's block run on it; each path keeps its own cache of them.
PATHS = ("ops", "ctypes")
_PATH_CACHES: dict = {}


@contextlib.contextmanager
def _path(name):
    """Artifacts loaded inside (by a module's first calls) run through the ops ('ops') or
    ctypes ('ctypes'), each path with its own cache of loaded artifacts (``st._WHOLE``)."""
    saved = st._WHOLE
    st._WHOLE = _PATH_CACHES.setdefault(name, {})
    try:
        with _ops.ctypes_only() if name == "ctypes" else contextlib.nullcontext():
            yield
    finally:
        st._WHOLE = saved


def _path_unavailable(path):
    """Why ``path`` cannot run here (None: it can)."""
    if path == "ops" and not _ops.load():
        return f"not loaded: {_ops.reason()}"
    return None


# The cotangent the checks give the loss: not 1, so that a backward that drops it fails.
COTANGENT = 0.75


def _loss_and_grad(x, S, P, clip_mode, clip_value, reduction, backend, seed=SEED):
    """``backend``: 'compiled' (a single process: the phased step artifact for a scalar loss
    without clip), 'step' (the step artifact run whole), 'pair' (compiled, no step artifact),
    'split' (compiled, the split forced) or 'torch'."""
    x = x.detach().clone().requires_grad_(True)
    with _mode(backend):
        loss = sigreg_loss(x, seed=seed, num_slices=S, num_points=P, clip_value=clip_value,
                           clip_mode=clip_mode, reduction=reduction,
                           backend="torch" if backend == "torch" else "compiled")
        (loss.sum() * COTANGENT).backward()
    return loss.detach().double(), x.grad.double()


def _rel(a, b):
    return float((a - b).norm() / b.norm().clamp_min(1e-30))


def check(configs):
    failed = 0
    print(f"{'config':22} {'backend':9} {'loss_err':>9} {'grad_err':>9} result")
    for name, V, N, D, S, P, dt, mode, cv, red in configs:
        x = _x(V, N, D, dt)
        ref_l, ref_g = _loss_and_grad(x.double(), S, P, mode, cv, red, "torch")
        for backend in ("compiled", "step", "pair", "split", "torch"):
            loss, grad = _loss_and_grad(x, S, P, mode, cv, red, backend)
            if red == "none":  # per slice, floor 0.1 x the mean (docs/CONTRACT.md)
                floor = 0.1 * ref_l.abs().mean()
                le = float(((loss - ref_l).abs() / ref_l.abs().clamp_min(floor)).max())
            else:
                le = _rel(loss, ref_l)
            ge = _rel(grad, ref_g)
            ok = le <= 2e-3 and ge <= 1e-2 and torch.isfinite(grad).all().item()
            failed += not ok
            print(f"{name:22} {backend:9} {le:9.2e} {ge:9.2e} {'PASS' if ok else 'FAIL'}")
    return failed


def _kernels_per_call(fn):
    """The names of the GPU kernels one call of ``fn`` launches (torch.profiler), after a
    warm-up call."""
    from torch.profiler import ProfilerActivity, profile  # noqa: PLC0415

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return [e.name for e in prof.events()
            if e.device_type == torch.autograd.DeviceType.CUDA
            and not e.name.startswith(("Memcpy", "Memset", "cudaMem"))]


def check_device_step(configs):
    """SIGReg's own global_step (a single process, no clip): the compiled artifacts read it
    on the GPU and the forward advances it. A forward + backward captured in a CUDA graph
    and replayed three times from step SEED + 10, then three eager calls from step SEED:
    each loss and dL/dx against the float64 reference of the seed it should have taken (a
    graph replayed with the seed of its capture, or a step that did not advance, fails), the
    step after them, and the kernels of one call."""
    failed = 0
    print(f"\n{'config':22} {'call':9} {'seed':>5} {'loss_err':>9} {'grad_err':>9} result"
          "   (SIGReg's global_step on the GPU)")
    for name, V, N, D, S, P, dt, _mode, cv, red in configs:
        if cv is not None:
            continue
        x = _x(V, N, D, dt).requires_grad_(True)
        m = SIGReg(num_slices=S, n_points=P, reduction=red).cuda()

        def step():
            x.grad = None
            m(x).backward()

        # The graph first, as a training loop captures it (warm-up on a side stream), before
        # anything else runs (run after the eager calls and their float64 references, the
        # capture failed: the backward made the legacy stream wait on the capturing one).
        out = {}

        def captured():
            x.grad = None
            out["loss"] = m(x)
            out["loss"].backward()

        g = _capture(captured)
        loss = out["loss"]
        m.global_step.fill_(SEED + 10)
        got = []
        for i in range(3):
            g.replay()
            torch.cuda.synchronize()
            got.append(("graph", SEED + 10 + i, loss.detach().clone(), x.grad.clone()))
        steps = [("graph", int(m.global_step), SEED + 13)]
        m.global_step.fill_(SEED)
        for i in range(3):
            x.grad = None
            eager = m(x)
            eager.backward()
            got.append(("eager", SEED + i, eager.detach(), x.grad.clone()))
        steps.append(("eager", int(m.global_step), SEED + 3))
        kernels = _kernels_per_call(step)  # two calls
        steps.append(("kernels", int(m.global_step), SEED + 5))
        for call, seed, value, grad in got:
            ref_l, ref_g = _loss_and_grad(x.double(), S, P, "zero_below", None, red, "torch",
                                          seed)
            le, ge = _rel(value.double(), ref_l), _rel(grad.double() * COTANGENT, ref_g)
            ok = le <= 2e-3 and ge <= 1e-2
            failed += not ok
            print(f"{name:22} {call:9} {seed:5d} {le:9.2e} {ge:9.2e} {'PASS' if ok else 'FAIL'}")
        for call, value, want in steps:
            failed += value != want
            print(f"{name:22} {call:9} step {value} after the calls (want {want}) "
                  f"{'PASS' if value == want else 'FAIL'}")
        ours = [k for k in kernels if k.startswith("sigreg_")]
        print(f"{name:22} {'kernels':9} {len(ours):5d} of ours per forward + backward "
              f"({', '.join(ours)}), {len(kernels)} in all (torch's fill of the unit "
              "cotangent)")
    return failed


def check_traced():
    """backend='compiled' under torch.compile(fullgraph=True): the custom ops of the split
    trace (fake implementations) and give what the eager call through the split gives."""
    x = _x(0, 1024, 1024, torch.bfloat16)
    knobs = dict(seed=torch.tensor(SEED), num_slices=1024, backend="compiled")
    with _split_only():
        eager_l, eager_g = _loss_and_grad_fn(lambda t: sigreg_loss(t, **knobs), x)
    traced = torch.compile(lambda t: sigreg_loss(t, **knobs), fullgraph=True)
    loss, grad = _loss_and_grad_fn(traced, x)
    le, ge = _rel(loss, eager_l), _rel(grad, eager_g)
    ok = le <= 1e-6 and ge <= 1e-6
    print(f"{'mid, torch.compile':22} {'compiled':9} {le:9.2e} {ge:9.2e} "
          f"{'PASS' if ok else 'FAIL'} (against the eager call through the split)")
    return not ok


def _loss_and_grad_fn(fn, x):
    x = x.detach().clone().requires_grad_(True)
    loss = fn(x)
    loss.sum().backward()
    return loss.detach().double(), x.grad.double()


def _median_ms(fn, warmup=10, iters=50):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(iters):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def _capture(fn):
    """``fn`` captured in a CUDA graph, as a training loop does it: three warm-up calls on a
    side stream, then the capture."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return g


def _graph_ms(fn, iters=50):
    """The same step captured in a CUDA graph and replayed: the device time without the host's
    launch overhead. None when the step cannot be captured."""
    try:
        g = _capture(fn)
    except Exception as e:  # noqa: BLE001 (reported, not fatal)
        print(f"  (graph capture failed: {type(e).__name__}: {str(e).splitlines()[0][:100]})")
        return None
    return _median_ms(g.replay, warmup=5, iters=iters)


def bench(configs, with_compile):
    cols = (["compiled", "compiled+graph", "step", "step+graph", "pair", "pair+graph", "split",
             "split+graph", "eager", "eager+graph"]
            + (["compile"] if with_compile else []))
    print("\n" + f"{'config':22} " + " ".join(f"{c:>14}" for c in cols)
          + "   (ms, forward + backward)")
    for name, V, N, D, S, P, dt, mode, cv, red in configs:
        x = _x(V, N, D, dt).requires_grad_(True)
        A = projection(SEED, D, S, device="cuda", dtype=torch.float32)
        knobs = dict(num_points=P, clip_value=cv, clip_mode=mode, reduction=red)
        seed = torch.tensor(SEED)  # on the host: .item() does not synchronize

        def ours():
            x.grad = None
            sigreg_loss(x, seed=seed, num_slices=S, backend="compiled", **knobs).sum().backward()

        def eager_step(f):
            def step():
                x.grad = None
                f(x, A, clip_mode=mode if cv is not None else "none",
                  clip_value=cv or 0.0, num_points=P, reduction=red).sum().backward()
            return step

        def split():
            with _split_only():
                ours()

        def pair():
            with _pair_only():
                ours()

        def unphased():
            with _unphased():
                ours()

        row = [_median_ms(ours), _graph_ms(ours), _median_ms(unphased), _graph_ms(unphased),
               _median_ms(pair), _graph_ms(pair),
               _median_ms(split), _graph_ms(split),
               _median_ms(eager_step(sigreg_eager)), _graph_ms(eager_step(sigreg_eager))]
        if with_compile:
            row.append(_median_ms(eager_step(torch.compile(sigreg_eager))))
        print(f"{name:22} " + " ".join(f"{t:14.4f}" if t is not None else f"{'n/a':>14}"
                                       for t in row))


def bench_module(configs):
    """SIGReg (its global_step on the GPU, backend 'compiled'): the median time of one forward
    + backward from Python and replayed from a CUDA graph, and its kernels per call."""
    print("\n" + f"{'config':22} {'module':>10} {'graph':>10} {'kernels':>8}"
          "   (ms, SIGReg forward + backward, global_step on the GPU; the compiled kernels "
          "per call)")
    for name, V, N, D, S, P, dt, mode, cv, red in configs:
        x = _x(V, N, D, dt).requires_grad_(True)
        m = SIGReg(num_slices=S, n_points=P, clip_value=cv, clip_mode=mode, reduction=red,
                   backend="compiled").cuda()

        def step():
            x.grad = None
            m(x).sum().backward()

        eager, graph = _median_ms(step), _graph_ms(step)
        kernels = [k for k in _kernels_per_call(step) if k.startswith("sigreg_")]
        print(f"{name:22} {eager:10.4f} {graph or float('nan'):10.4f} {len(kernels):8d}")


def _runtime_bytes() -> int:
    """Device memory the C runtime holds for every compiled function loaded so far."""
    return sum(f.device_bytes() for f in st._WHOLE.values() if hasattr(f, "device_bytes"))


def memory(configs):
    """Peak device memory of the first forward + backward through the module, above x (run
    before anything else of the configuration, so that it counts everything the call
    creates): torch's allocator peak (dL/dx, the loss, the per-call workspaces the backward
    reads) plus what the C runtime allocated for the artifact (its other workspaces), in MiB;
    and the same for the LeJEPA-style eager implementation (its projection A counted as an
    input, as in the anchors)."""
    mib = 1 << 20
    print("\n" + f"{'config':22} {'x MiB':>8} {'torch peak':>11} {'runtime':>9} {'total':>9}"
          f" {'eager':>9}   (MiB above the inputs, first forward + backward)")
    for name, V, N, D, S, P, dt, mode, cv, red in configs:
        x = _x(V, N, D, dt).requires_grad_(True)
        knobs = dict(num_points=P, clip_value=cv, clip_mode=mode, reduction=red)
        seed = torch.tensor(SEED)
        torch.cuda.synchronize()
        base, held = torch.cuda.memory_allocated(), _runtime_bytes()
        torch.cuda.reset_peak_memory_stats()
        sigreg_loss(x, seed=seed, num_slices=S, backend="compiled", **knobs).sum().backward()
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated() - base
        runtime = _runtime_bytes() - held
        x.grad = None
        A = projection(SEED, D, S, device="cuda", dtype=torch.float32)
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        sigreg_eager(x, A, clip_mode=mode if cv is not None else "none", clip_value=cv or 0.0,
                     num_points=P, reduction=red).sum().backward()
        torch.cuda.synchronize()
        eager = torch.cuda.max_memory_allocated() - base
        x.grad = None
        print(f"{name:22} {x.numel() * x.element_size() / mib:8.1f} {peak / mib:11.1f} "
              f"{runtime / mib:9.1f} {(peak + runtime) / mib:9.1f} {eager / mib:9.1f}")


def _host_us(fn, iters):
    """Host time per call of ``fn`` (us, median of 5 rounds of ``iters`` calls, no
    synchronization inside a round: the time Python spends before the call returns, with the
    GPU running behind)."""
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    rounds = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        rounds.append((time.perf_counter() - t0) / iters * 1e6)
        torch.cuda.synchronize()
    return statistics.median(rounds)


class _Floor(torch.autograd.Function):
    """The least a module call through an autograd.Function does: its 0-d output."""

    @staticmethod
    def forward(ctx, x):
        return x.new_empty((), dtype=torch.float32)

    @staticmethod
    def backward(ctx, g):
        return None


class _FloorModule(torch.nn.Module):
    def forward(self, x):
        return _Floor.apply(x)


def _route_function(m, x):
    """The loss artifact of ``m``'s no_grad route on ``x`` (after a no_grad call), with the
    keyword arguments of its call (``step=`` the module's counter, or ``seed=``), or None."""
    route = next(iter((m._routes or {}).values()), None)
    if route is None or route[1] is None:
        return None, None
    return route[1], ({"step": m._buffers["global_step"]} if route[3] else {"seed": SEED})


def _op_args(fn, x, kw):
    """The arguments of ``torch.ops.sigreg.call.default`` for the call ``fn(x, **kw)``."""
    return (x, fn._oph, kw.get("seed", 0), kw.get("step"))


def host(configs, profile=False, iters=200):
    """Host time per module call (``SIGReg`` with backend 'compiled', the step artifact), on
    each path (the ops, ctypes): the forward alone under no_grad and with autograd, the forward
    + backward, the loss artifact's call alone (ops: ``torch.ops.sigreg.call.default``; ctypes:
    the ``CapiFunction`` call), the unphased step artifact's run alone, and for scale an empty
    launch-sized torch op (``x.add_(0)``) and the floor of any module whose forward is an
    autograd.Function (``_Floor``: it allocates its 0-d output and launches nothing), with
    autograd, alone and with ``.sum().backward()`` (floor f+b: what the autograd engine costs a
    forward + backward whatever the kernels)."""
    print(f"\n{'config':22} {'path':7} {'fwd(no_grad)':>12} {'fwd':>12} {'fwd+bwd':>12} "
          f"{'call':>12} {'step run':>12} {'torch op':>12} {'floor':>12} {'floor f+b':>12}   "
          "(us of host time per call)")
    floor = _FloorModule()
    for name, V, N, D, S, P, dt, mode, cv, red in configs:
        x = _x(V, N, D, dt).requires_grad_(True)
        y = torch.zeros(1, device="cuda")

        def floor_step():
            x.grad = None
            floor(x).sum().backward()

        scale = [_host_us(lambda: y.add_(0), iters), _host_us(lambda: floor(x), iters),
                 _host_us(floor_step, iters)]
        for path in PATHS:
            why = _path_unavailable(path)
            if why is not None:
                print(f"{name:22} {path:7} {why}")
                continue
            with _path(path):
                m = SIGReg(num_slices=S, n_points=P, clip_value=cv, clip_mode=mode,
                           reduction=red, backend="compiled").cuda()

                def fwd_nograd():
                    with torch.no_grad():
                        m(x)

                def fwd():
                    m(x)

                def step():
                    x.grad = None
                    m(x).sum().backward()

                row = [_host_us(fwd_nograd, iters), _host_us(fwd, iters), _host_us(step, iters)]
                fn, kw = _route_function(m, x)
                xd = x.detach()
                if fn is None:
                    row.append(None)
                elif path == "ops":
                    op, args = torch.ops.sigreg.call.default, _op_args(fn, xd, kw)
                    row.append(_host_us(lambda: op(*args), iters))
                else:
                    row.append(_host_us(lambda: fn(xd, **kw), iters))
                sfn = st._whole_function(x, S, P, float(m.t_max), cv, mode, red, False, step=True)
                if sfn is not None and path == "ops" and sfn._oph is not None:
                    args = (xd, sfn._oph, SEED, None, torch.ones((), device="cuda"))
                    run = torch.ops.sigreg.step_run.default
                    row.append(_host_us(lambda: run(*args), iters))
                elif sfn is not None:
                    bufs = {"x": xd, "grad": torch.ones((), device="cuda"),
                            "out": torch.empty((), device="cuda"),
                            "dx": torch.empty(x.shape, device="cuda")}
                    row.append(_host_us(lambda: sfn.run(bufs, seed=SEED), iters))
                else:
                    row.append(None)
            print(f"{name:22} {path:7} " + " ".join(
                f"{t:12.1f}" if t is not None else f"{'n/a':>12}" for t in row + scale))
            if profile:
                import cProfile  # noqa: PLC0415
                import pstats  # noqa: PLC0415

                for what, f in (("forward under no_grad", fwd_nograd), ("forward", fwd),
                                ("forward + backward", step)):
                    pr = cProfile.Profile()
                    pr.enable()
                    for _ in range(iters):
                        f()
                    pr.disable()
                    torch.cuda.synchronize()
                    print(f"\n{name} [{path}]: {what}, {iters} calls")
                    pstats.Stats(pr).sort_stats("tottime").print_stats(20)


def train(steps=200):
    """A 2-layer encoder (64 -> 512 -> 256) on Gaussian-mixture inputs, batch 256, Adam, the
    SIGReg loss alone (its minimum: Gaussian embeddings), bf16 autocast: once per backend."""
    curves, walls = {}, {}
    for backend in ("compiled", "torch"):
        torch.manual_seed(0)
        enc = torch.nn.Sequential(torch.nn.Linear(64, 512), torch.nn.GELU(),
                                  torch.nn.Linear(512, 256)).cuda()
        opt = torch.optim.Adam(enc.parameters(), lr=1e-3)
        loss_fn = SIGReg(num_slices=256, backend=backend).cuda()
        g = torch.Generator(device="cuda").manual_seed(5)
        centers = torch.randn(8, 64, generator=g, device="cuda") * 3
        curve = []
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(steps):
            idx = torch.randint(0, 8, (256,), generator=g, device="cuda")
            inp = centers[idx] + 0.3 * torch.randn(256, 64, generator=g, device="cuda")
            with torch.autocast("cuda", dtype=torch.bfloat16):
                emb = enc(inp)
            loss = loss_fn(emb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            curve.append(loss.detach())
        torch.cuda.synchronize()
        walls[backend] = time.perf_counter() - t0
        curves[backend] = torch.stack(curve).double().cpu()
    c, t = curves["compiled"], curves["torch"]
    rel = ((c - t).abs() / t.abs()).max().item()
    print(f"\ntraining, {steps} steps: loss {t[0]:.3f} -> {t[-1]:.3f} (torch backend), "
          f"{c[0]:.3f} -> {c[-1]:.3f} (compiled); largest relative difference per step "
          f"{rel:.2e}; wall {walls['compiled']:.2f} s compiled, {walls['torch']:.2f} s torch")
    for i in (0, 49, 99, 149, steps - 1):
        print(f"  step {i + 1:3d}: compiled {c[i]:.4f}  torch {t[i]:.4f}")
    # The curves agree within tolerance when the final losses do and no step diverges by more
    # than a few percent (the two backends round differently, and training amplifies it).
    ok = abs(c[-1] - t[-1]) / t[-1] < 0.05 and rel < 0.2
    print(f"training smoke test: {'PASS' if ok else 'FAIL'}")
    return not ok


def precompile(configs) -> int:
    """Compiles into the cache (``$SIGREG_CACHE_DIR``) every artifact the checks run
    (``sigreg.torch.call_problems`` of each configuration and of the training run); needs the
    compiler, not a GPU. Returns the number of artifacts that failed to compile."""
    from .compile import CompileError, compile_artifact  # noqa: PLC0415

    failed = 0
    for name, V, N, D, S, P, dt, mode, cv, red in configs + [TRAIN_CONFIG]:
        shape = (V, N, D) if V else (N, D)
        for p in st.call_problems(shape, dt, S, num_points=P, clip_value=cv, clip_mode=mode,
                                  reduction=red):
            what = p.entry_point or ("phased" if p.phased else "step" if p.step
                                    else "loss_grad" if p.gradient else "loss")
            try:
                print(f"{name:22} {what:12} {compile_artifact(p)}")
            except CompileError as e:
                failed += 1
                print(f"{name:22} {what:12} FAILED: {str(e).splitlines()[0]}")
    return failed


def host_breakdown(configs, iters=200):
    """Where a no_grad module call's host time goes (``--host-breakdown``), on each path: the
    call as ``--host`` times it, then its parts one by one on the same artifact (the route the
    module recorded): the module under one outer no_grad, and through _run_route instead of
    the direct call of its op (then the first row again), the CapiFunction call; on the ops
    path the op alone (``torch.ops.sigreg.call.default``, through the packet, and a dispatcher
    call that does nothing for scale); on the ctypes path each also through bind + seed + run
    instead of the one-call form (sigreg_aot_call), the C ABI run alone (the runtime and
    cuLaunchKernel), a ctypes call that does nothing, the output's allocation, the stream
    query; then the no_grad block alone and a torch op for scale. First it checks that the
    paths give the same bits: the op, the ctypes one-call form and bind + seed + run. Returns
    the number of configurations where they differ."""
    from sigreg import capi  # noqa: PLC0415

    failed = 0
    print(f"\n{'config':22} {'part':52} {'us/call':>8}")
    for name, V, N, D, S, P, dt, mode, cv, red in configs:
        x = _x(V, N, D, dt)
        fns, modules = {}, {}
        for path in PATHS:
            if _path_unavailable(path) is not None:
                continue
            with _path(path):
                m = SIGReg(num_slices=S, n_points=P, clip_value=cv, clip_mode=mode,
                           reduction=red, backend="compiled").cuda()
                with torch.no_grad():
                    m(x)
            fn, kw = _route_function(m, x)
            if fn is not None:
                fns[path], modules[path] = (fn, kw), m
        if "ctypes" not in fns:
            print(f"{name:22} no whole-problem route recorded")
            continue
        if "ops" not in fns:
            print(f"{name:22} ops path: {_path_unavailable('ops') or 'no route'}")
        fn, kw = fns["ctypes"]
        device_step = "step" in kw
        step = kw.get("step")

        # The paths give the same bits (the same seed, or copies of the same step).
        def same_bits():
            got = {}
            for what, g in (("ctypes one call", fn), ("ops", fns.get("ops", (None,))[0]),
                            ("bind + seed + run", None)):
                if what == "ops" and g is None:
                    continue
                a_kw = {"step": step.clone()} if device_step else dict(kw)
                with torch.no_grad():
                    if g is None:
                        fast = fn.__dict__.get("_fast")
                        fn.__dict__["_fast"] = None
                        got[what] = (fn(x, **a_kw), a_kw.get("step"))
                        fn.__dict__["_fast"] = fast
                    else:
                        got[what] = (g(x, **a_kw), a_kw.get("step"))
            ref = got["ctypes one call"]
            return all(torch.equal(v[0], ref[0]) and (not device_step or torch.equal(v[1], ref[1]))
                       for v in got.values()), sorted(got)

        same, compared = same_bits()
        failed += 0 if same and fn._fast is not None else 1
        print(f"{name:22} {' == '.join(compared) + ', bitwise':52} "
              f"{'yes' if same else 'NO'}{'' if fn._fast is not None else ' (no one-call form)'}")

        def without_one_call(f):
            def timed():
                fast = fn.__dict__.get("_fast")
                fn.__dict__["_fast"] = None  # the general path: bind, seed, run
                try:
                    return _host_us(f, iters)
                finally:
                    fn.__dict__["_fast"] = fast
            return timed

        def empty_no_grad():
            with torch.no_grad():
                pass

        def without_direct(m, f):
            """``f`` timed with the module's last route taken through _run_route, as before
            SIGReg.forward called a device-step route's op itself (n/a: no direct call)."""
            def timed():
                last = m._last
                if last is None or last[6] is None:
                    return float("nan")
                m.__dict__["_last"] = last[:6] + (None,)
                try:
                    return _host_us(f, iters)
                finally:
                    m.__dict__["_last"] = last
            return timed

        parts = []
        for path in PATHS:
            if path not in fns:
                continue
            m, (f, fkw) = modules[path], fns[path]

            def per_call_no_grad(m=m):
                with torch.no_grad():
                    m(x)

            parts += [(f"[{path}] module call, no_grad block per call", per_call_no_grad, False),
                      (f"[{path}] module call under one outer no_grad", lambda m=m: m(x), True),
                      (f"[{path}] module call, no_grad block, through _run_route",
                       without_direct(m, per_call_no_grad), None),
                      (f"[{path}] module call, no_grad block per call (again)", per_call_no_grad,
                       False),
                      (f"[{path}] CapiFunction call (route's loss artifact)",
                       lambda f=f, fkw=fkw: f(x, **fkw), True)]
            if path == "ops":
                op, packet, args = (torch.ops.sigreg.call.default, torch.ops.sigreg.call,
                                    _op_args(f, x, fkw))
                parts += [("[ops] torch.ops.sigreg.call.default alone", lambda: op(*args), True),
                          ("[ops] torch.ops.sigreg.call (packet) alone",
                           lambda: packet(*args), True),
                          ("[ops] a dispatcher op doing nothing",
                           torch.ops.sigreg.runtime_call_address.default, False)]
            else:
                parts += [("[ctypes] module call, bind + seed + run (no sigreg_aot_call)",
                           without_one_call(per_call_no_grad), None),
                          ("[ctypes] CapiFunction call, bind + seed + run",
                           without_one_call(lambda: fn(x, **kw)), None)]
        lib, h = fn._lib, fn._h
        stream = capi._current_stream(torch, x.get_device()) or 1
        out = torch.empty((), device="cuda")
        y = torch.zeros(1, device="cuda")
        parts += [
            # The output bound to a tensor that stays alive, then the runs write there.
            ("[ctypes] sigreg_aot_bind of out",
             lambda: lib.sigreg_aot_bind(h, fn.info.output.encode(), out.data_ptr()), False),
            ("[ctypes] sigreg_aot_run alone (C ABI + launch)",
             lambda: lib.sigreg_aot_run(h, stream), False),
            ("[ctypes] ctypes call doing nothing", lambda: lib.sigreg_aot_last_error(h), False),
            ("x.new_empty(()) on the GPU", lambda: x.new_empty((), dtype=torch.float32), False),
            ("torch's current raw stream", lambda: capi._current_stream(torch, 0), False),
            ("_CallSpec.accepts", lambda: fn._spec.accepts(torch, {"x": x, **(
                {"step": step} if device_step else {})}, None if device_step else SEED,
                exact=False), False),
            ("a no_grad block alone", empty_no_grad, False),
            ("torch op y.add_(0)", lambda: y.add_(0), False),
        ]
        for what, f, nograd in parts:
            with torch.no_grad() if nograd else contextlib.nullcontext():
                t = f() if nograd is None else _host_us(f, iters)
            print(f"{name:22} {what:52} {t:8.2f}")
        fn._bound.clear()  # the bind above moved the output's binding
    return failed


def _run_case(m, x, train, calls=3):
    """``calls`` module calls on copies of ``x`` (the loss, and dL/dx for the cotangent
    COTANGENT when ``train``), then the module's step."""
    got = []
    for _ in range(calls):
        xi = x.detach().clone().requires_grad_(train)
        if train:
            loss = m(xi)
            (loss.sum() * COTANGENT).backward()
            got += [loss.detach().clone(), xi.grad.clone()]
        else:
            with torch.no_grad():
                got.append(m(xi).clone())
    return got + [m.global_step.detach().clone()]


def _run_graph(m, x, replays=3):
    """A forward + backward captured in a CUDA graph, replayed ``replays`` times from step
    SEED + 10: each replay's loss and dL/dx, then the step."""
    x = x.detach().clone().requires_grad_(True)
    out = {}

    def captured():
        x.grad = None
        out["loss"] = m(x)
        (out["loss"].sum() * COTANGENT).backward()

    g = _capture(captured)
    m.global_step.fill_(SEED + 10)
    got = []
    for _ in range(replays):
        g.replay()
        torch.cuda.synchronize()
        got += [out["loss"].detach().clone(), x.grad.clone()]
    return got + [m.global_step.detach().clone()]


def check_ops(configs):
    """``--ops``: the ops path (torch.ops.sigreg, sigreg._ops) against the ctypes path in one
    process, bitwise: each case's module calls on both from the same step (three calls, each
    loss and dL/dx, then the step), and a second ctypes run as the control (the kernels'
    determinism). Cases: a no_grad forward (the loss artifact, ``call``) and a training step
    (the phased step, ``step_phased``), with the module's step on the GPU and with a host seed;
    the step run whole (``step``), the loss and gradient artifacts (``_LossCompiled`` over
    ``call``), and a forward + backward replayed from a CUDA graph. Returns the number of cases
    that differ."""
    why = _path_unavailable("ops")
    if why is not None:
        print(f"\nops path: {why}")
        return 1
    cases = [("no_grad", {}, False, contextlib.nullcontext, _run_case),
             ("train (phased)", {}, True, contextlib.nullcontext, _run_case),
             ("seed, no_grad", {"seed": SEED}, False, contextlib.nullcontext, _run_case),
             ("seed, train (phased)", {"seed": SEED}, True, contextlib.nullcontext, _run_case),
             ("train, step whole", {}, True, _unphased, _run_case),
             ("train, loss + gradient", {}, True, _pair_only, _run_case),
             ("graph, train (phased)", {}, True, contextlib.nullcontext, _run_graph)]
    failed = 0
    print(f"\n{'config':22} {'case':24} {'ops == ctypes':>13} {'control':>8} result   "
          "(bitwise: losses, dL/dx, the step after)")
    for name, V, N, D, S, P, dt, _mode, cv, red in configs:
        if cv is not None:
            continue  # clipped: the split, not these paths
        x = _x(V, N, D, dt)
        for case, kw, train, ctx, run in cases:
            got = {}
            for run_name in ("ops", "ctypes", "control"):
                path = "ops" if run_name == "ops" else "ctypes"
                with _path(path), ctx():
                    m = SIGReg(num_slices=S, n_points=P, reduction=red, backend="compiled",
                               **kw).cuda()
                    m.global_step.fill_(SEED)
                    try:
                        got[run_name] = run(m, x, train)
                    except Exception as e:  # noqa: BLE001 (reported as a failure)
                        got[run_name] = f"{type(e).__name__}: {str(e).splitlines()[0][:80]}"
            if any(isinstance(v, str) for v in got.values()):
                failed += 1
                print(f"{name:22} {case:24} FAIL: " + "; ".join(
                    f"{k} {v}" for k, v in got.items() if isinstance(v, str)))
                continue

            def equal(a, b):
                return len(a) == len(b) and all(torch.equal(u, v) for u, v in zip(a, b))

            same, control = equal(got["ops"], got["ctypes"]), equal(got["control"],
                                                                      got["ctypes"])
            failed += not same
            print(f"{name:22} {case:24} {'yes' if same else 'NO':>13} "
                  f"{'yes' if control else 'NO':>8} {'PASS' if same else 'FAIL'}")
    return failed


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", action="store_true")
    ap.add_argument("--compile", action="store_true", help="with --bench: torch.compile too")
    ap.add_argument("--train", action="store_true")
    ap.add_argument("--memory", action="store_true",
                    help="peak device memory of the first forward + backward (run first)")
    ap.add_argument("--host", action="store_true",
                    help="the host time per module call (forward, forward + backward)")
    ap.add_argument("--skip-check", action="store_true",
                    help="skip the accuracy checks (with --bench or --host)")
    ap.add_argument("--profile", action="store_true", help="with --host: cProfile each")
    ap.add_argument("--host-breakdown", action="store_true",
                    help="where a no_grad module call's host time goes, part by part")
    ap.add_argument("--ops", action="store_true",
                    help="the torch ops path against the ctypes path, module calls bitwise")
    ap.add_argument("--traced", action="store_true",
                    help="also the compiled backend under torch.compile(fullgraph=True)")
    ap.add_argument("--device-step", action="store_true",
                    help="also SIGReg's global_step read and advanced on the GPU, eager and "
                         "replayed from a CUDA graph")
    ap.add_argument("--only", default="", help="comma-separated configuration names")
    ap.add_argument("--precompile", action="store_true",
                    help="only compile the artifacts the checks run into the cache (on a "
                         "machine with the compiler), then exit")
    args = ap.parse_args(argv)
    configs = [c for c in CONFIGS if not args.only or c[0] in args.only.split(",")]
    if args.precompile:
        return 1 if precompile(configs) else 0
    if args.memory:
        memory(configs)
    failed = 0 if args.skip_check else check(configs)
    if args.traced:
        failed += check_traced()
    if args.device_step:
        failed += check_device_step(configs)
    if args.bench:
        bench(configs, args.compile)
        bench_module(configs)
    if args.host:
        host(configs, args.profile)
    if args.ops:
        failed += check_ops(configs)
    if args.host_breakdown:
        failed += host_breakdown(configs)
    if args.train:
        failed += train()
    print(f"\n{'FAIL' if failed else 'PASS'}: {failed} failure(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
