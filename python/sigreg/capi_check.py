"""The C ABI executor (sigreg.capi) on the GPU: stable outputs and the cost of a call.

``python -m sigreg.capi_check DIR...``: for each artifact directory (a loss or a gradient), the
same inputs run four ways, whose outputs must be bitwise equal: a first call, a second call into
a new output tensor, a call on a copy of x (a new address: the runtime rebinds x and re-encodes
its tensor maps), and the replay of a CUDA graph captured from a call. With two GPUs or more,
also the artifact loaded on the last one (``CapiFunction(DIR, device=N-1)``) on copies of the
inputs there, and device 0's function called again after it: both bitwise equal to the first
call. The check reports the host time per call (median of 2000 enqueues without synchronizing,
``time.perf_counter``) and the device time (CUDA events, median of 200). Exit status 1 when an
output differs.
"""

from __future__ import annotations

import statistics
import sys
import time

import torch

from .capi import CapiFunction


def _inputs(f, seed=3):
    p = f.problem
    g = torch.Generator(device="cuda").manual_seed(1)
    dt = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[p.dtype]
    x = torch.randn(p.x_shape(), generator=g, device="cuda").to(dt)
    kw = {}
    if p.projection == "explicit":
        kw["proj"] = torch.randn((p.D, p.S), generator=g, device="cuda").to(dt)
    else:
        kw["seed"] = seed
    if p.gradient:
        kw["grad"] = torch.ones(p.out_shape(), device="cuda")
    return x, kw


def _replayed(call, out):
    """``call(out)`` captured in a CUDA graph (after a warm-up on a side stream), replayed once
    into a poisoned ``out``."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        call(out)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        call(out)
    out.fill_(float("nan"))
    g.replay()
    torch.cuda.synchronize()
    return out


def _other_device(d, x, kw, f, first):
    """"-" with one GPU; else whether the artifact on the last device, then ``f`` (device 0)
    again, give ``first``'s bits."""
    n = torch.cuda.device_count()
    if n < 2:
        return "-"
    dev = torch.device("cuda", n - 1)
    other = CapiFunction(d, device=dev)
    with torch.cuda.device(dev):
        there = other(x.to(dev), **{k: v.to(dev) if isinstance(v, torch.Tensor) else v
                                    for k, v in kw.items()})
        torch.cuda.synchronize(dev)
    other.close()
    again = f(x, **kw)
    torch.cuda.synchronize()
    return str(torch.equal(there.cpu(), first.cpu()) and torch.equal(again, first))


def _host_us(call, n=2000):
    for _ in range(50):
        call()
    torch.cuda.synchronize()
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        call()
        samples.append((time.perf_counter() - t0) * 1e6)
    torch.cuda.synchronize()
    return statistics.median(samples)


def _device_ms(call, n=200):
    for _ in range(20):
        call()
    ms = []
    for _ in range(n):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        call()
        b.record()
        b.synchronize()
        ms.append(a.elapsed_time(b))
    return statistics.median(ms)


def main(argv=None) -> int:
    dirs = sys.argv[1:] if argv is None else argv
    failed = 0
    print(f"{'artifact':40} {'repeat':6} {'rebind':6} {'graph':6} {'device':6} {'host us':>8} "
          f"{'device ms':>10}")
    for d in dirs:
        f = CapiFunction(d)
        if f.problem.entry_point:
            print(f"{d:40} skipped: the {f.problem.entry_point} entry point (sigreg.module_check runs it)")
            f.close()
            continue
        x, kw = _inputs(f)
        first = f(x, **kw)
        second = f(x, **kw)
        moved = f(x.clone(), **kw)
        graph = _replayed(lambda o: f(x, out=o, **kw), torch.empty_like(first))
        torch.cuda.synchronize()
        same = [torch.equal(first, o) for o in (second, moved, graph)]
        elsewhere = _other_device(d, x, kw, f, first)
        failed += not all(same) or elsewhere == "False"
        oc = torch.empty_like(first)
        host = _host_us(lambda: f(x, out=oc, **kw))
        dev = _device_ms(lambda: f(x, out=oc, **kw))
        print(f"{d:40} {str(same[0]):6} {str(same[1]):6} {str(same[2]):6} {elsewhere:6} "
              f"{host:8.1f} {dev:10.4f}")
        f.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
