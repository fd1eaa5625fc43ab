"""The C ABI executor (sigreg.capi) against the Python one (sigreg.aot) on the GPU.

``python -m sigreg.capi_check DIR...``: for each artifact directory, the two executors on the
same inputs. The outputs must be bitwise equal. The check reports the host time per call
(median of 2000 enqueues without synchronizing, ``time.perf_counter``) and the device time
(CUDA events, median of 200) of each executor.
"""

from __future__ import annotations

import statistics
import sys
import time

import torch

from .aot import AotFunction
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
    if getattr(p, "gradient", False):
        kw["grad"] = torch.ones(p.out_shape(), device="cuda")
    return x, kw


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
    print(f"{'artifact':40} {'equal':6} {'host us capi':>12} {'host us aot':>12} "
          f"{'device ms capi':>15} {'device ms aot':>14}")
    for d in dirs:
        fc = CapiFunction(d)
        x, kw = _inputs(fc)
        fa = AotFunction(d) if "grad" not in kw else None  # sigreg.aot runs forward artifacts
        out_c = fc(x, **kw)
        out_a = fa(x, **kw) if fa else None
        torch.cuda.synchronize()
        equal = out_a is None or torch.equal(out_c, out_a)
        failed += not equal
        oc = torch.empty_like(out_c)
        host_c = _host_us(lambda: fc(x, out=oc, **kw))
        host_a = _host_us(lambda: fa(x, **kw)) if fa else float("nan")
        dev_c = _device_ms(lambda: fc(x, out=oc, **kw))
        dev_a = _device_ms(lambda: fa(x, **kw)) if fa else float("nan")
        print(f"{d:40} {str(equal):6} {host_c:12.1f} {host_a:12.1f} {dev_c:15.4f} {dev_a:14.4f}")
        fc.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
