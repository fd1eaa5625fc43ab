"""Compiles every artifact the compiled backend may ask for over a matrix of problems, and
groups the rejections by diagnostic (twenty-third session: two compiler bugs found this way).

``python -m sigreg.compile_sweep [--quick]`` (needs the compiler, no GPU; uses
``$SIGREG_CACHE_DIR``): for each shape, dtype, slice count, point count, clip and reduction of
the matrix below, every ``sigreg.torch.call_problems`` artifact is compiled. A rejection is not
necessarily a bug: the fused backward's error model rejects bf16 at N 8192, D 64, for example,
and the module then runs another path. Exit status 0 when nothing is rejected, else 1.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import sys
import time

import torch

from . import compile as sc
from . import torch as st

SHAPES = [(32, 2048), (96, 64), (3, 40, 136), (256, 16), (300, 72), (2, 512, 264), (1000, 128),
          (16, 8), (33, 40), (128, 520), (3, 129, 64), (256, 1000), (8192, 64)]
# (S, P) pairs: few and many slices, the knobs' edges.
SLICES_POINTS = [(8, 3), (48, 17), (104, 9), (256, 33), (1024, 17), (104, 65)]
CLIPS = [(None, "zero_below"), (0.8, "zero_below"), (0.5, "clamp_min")]
REDUCTIONS = ["mean", "sum", "none"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the first four shapes, bf16 only")
    args = ap.parse_args(argv)
    shapes = SHAPES[:4] if args.quick else SHAPES
    dtypes = [torch.bfloat16] if args.quick else [torch.bfloat16, torch.float16]
    rejected = collections.Counter()
    example = {}
    count, t0 = 0, time.time()
    for shape, dtype, (S, P), (cv, mode), red in itertools.product(
            shapes, dtypes, SLICES_POINTS, CLIPS, REDUCTIONS):
        if S * shape[-2] > 2 ** 22:  # the largest batches with a few slices only
            continue
        for p in st.call_problems(shape, dtype, S, num_points=P, clip_value=cv, clip_mode=mode,
                                  reduction=red):
            count += 1
            try:
                sc.compile_artifact(p)
            except sc.CompileError as e:
                lines = [line.split("error:", 1)[1].strip() for line in str(e).splitlines()
                         if "error:" in line] or [str(e)]
                rejected[lines[0]] += 1
                example.setdefault(lines[0], p)
    print(f"compile_sweep: {count} artifacts, {sum(rejected.values())} rejected, "
          f"{time.time() - t0:.0f} s")
    for why, n in rejected.most_common():
        print(f"{n:5} x {why}\n        e.g. {example[why]}")
    return 1 if rejected else 0


if __name__ == "__main__":
    sys.exit(main())
