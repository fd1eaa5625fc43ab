"""The reference values pinned in the CPU lit tests, recomputed independently.

Several lit tests in test/Integration/CPU pin the float64 reference that
``sigreg-run`` prints (so that a clip that clips nothing, or a seed that is
ignored, cannot pass). Those numbers come from the C++ reference. This test
recomputes each of them with the Python side only: the inputs with a Python
std::mt19937_64 (the generator of lib/Reference/Inputs.cpp), the projection
with the NumPy Philox mapping, the loss with :mod:`sigreg.reference`, and
checks the number written in the lit file.
"""

from __future__ import annotations

import math
import pathlib
import re

import numpy as np
import pytest

from sigreg import reference

ROOT = pathlib.Path(__file__).resolve().parents[2]
_MASK = (1 << 64) - 1


class MT19937_64:
    """std::mt19937_64 (Matsumoto-Nishimura 2004 parameters)."""

    def __init__(self, seed: int):
        self.mt = [seed & _MASK]
        for i in range(1, 312):
            prev = self.mt[-1]
            self.mt.append((6364136223846793005 * (prev ^ (prev >> 62)) + i) & _MASK)
        self.index = 312

    def _twist(self):
        mt = self.mt
        for i in range(312):
            x = (mt[i] & 0xFFFFFFFF80000000) | (mt[(i + 1) % 312] & 0x7FFFFFFF)
            xa = x >> 1
            if x & 1:
                xa ^= 0xB5026F5AA96619E9
            mt[i] = mt[(i + 156) % 312] ^ xa
        self.index = 0

    def __call__(self) -> int:
        if self.index >= 312:
            self._twist()
        x = self.mt[self.index]
        self.index += 1
        x ^= (x >> 29) & 0x5555555555555555
        x ^= (x << 17) & 0x71D67FFFEDA60000
        x ^= (x << 37) & 0xFFF7EEE000000000
        x ^= x >> 43
        return x & _MASK


def test_mt19937_64_known_answers():
    # The C++ standard requires the 10000th output of a default-constructed
    # std::mt19937_64 (seed 5489) to be 9981545732273789042.
    r = MT19937_64(5489)
    for _ in range(9999):
        r()
    assert r() == 9981545732273789042
    r = MT19937_64(1)
    assert [r(), r()] == [2469588189546311528, 2516265689700432462]


def harness_inputs(input_seed: int, shape) -> np.ndarray:
    """sigreg::fillNormal (scale 1): Box-Muller pairs of 53-bit uniforms."""
    count = int(np.prod(shape))
    rng = MT19937_64(input_seed)
    out = np.empty(count, dtype=np.float32)
    for i in range(0, count, 2):
        u1 = float((rng() >> 11) + 1) * 2.0**-53
        u2 = float(rng() >> 11) * 2.0**-53
        r = math.sqrt(-2.0 * math.log(u1))
        out[i] = np.float32(r * math.cos(2 * math.pi * u2))
        if i + 1 < count:
            out[i + 1] = np.float32(r * math.sin(2 * math.pi * u2))
    return out.reshape(shape)


RAGGED = dict(shape=(3, 37, 129), slices=77, points=9)
SMALL = dict(shape=(2, 41, 33), slices=29, points=17)

# (lit file, FileCheck prefix, problem, knobs); seeds default to
# sigreg-run's --seed=0 --input-seed=1.
CASES = [
    ("clip.mlir", "ZB", RAGGED, dict(clip_mode="zero_below", clip_value=0.7)),
    ("clip.mlir", "ZB-NONE", RAGGED, dict(clip_mode="zero_below", clip_value=0.7)),
    ("clip.mlir", "CM", RAGGED, dict(clip_mode="clamp_min", clip_value=0.7)),
    ("clip.mlir", "CM-NONE", RAGGED, dict(clip_mode="clamp_min", clip_value=0.7)),
    ("clip.mlir", "ZB-SUM", RAGGED, dict(clip_mode="zero_below", clip_value=0.7, reduction="sum")),
    ("ragged-views.mlir", "F32", RAGGED, {}),
    ("projection.mlir", "R3", RAGGED, {}),
    ("projection.mlir", "SEEDED", RAGGED, {}),
    ("reductions.mlir", "MEAN", SMALL, {}),
    ("reductions.mlir", "SUM", SMALL, dict(reduction="sum")),
    ("reductions.mlir", "NONE", SMALL, {}),
    ("seeds.mlir", "DEFAULT", SMALL, {}),
    ("seeds.mlir", "BOTH", SMALL, dict(seed=12345, input_seed=7)),
    ("clip.mlir", "CM-RANK2", dict(shape=(37, 129), slices=77, points=9),
     dict(clip_mode="clamp_min", clip_value=0.7, dtype="bf16")),
]


def round_bf16(a: np.ndarray) -> np.ndarray:
    """float32 -> bf16 (round to nearest even), returned as float32."""
    bits = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


# Gradients (test/Integration/CPU/gradient.mlir): the pinned value is the
# norm of the float64 reference dL/dx for an all-ones upstream gradient
# (reduction none: the gradient of the sum of the statistics).
GRADIENT_CASES = [
    ("MEAN", RAGGED, dict(reduction="mean")),
    ("NONE", dict(shape=(37, 129), slices=77, points=9),
     dict(clip_mode="clamp_min", clip_value=0.7, reduction="none", dtype="bf16", explicit=True)),
    ("ZB", SMALL, dict(clip_mode="zero_below", clip_value=0.9, reduction="sum", dtype="f16")),
]


def pinned(file: str, prefix: str) -> str:
    text = (ROOT / "test" / "Integration" / "CPU" / file).read_text()
    m = re.search(rf"^// {re.escape(prefix)}(?:-NEXT)?:\s+reference(?: \(mean\))? \{{\{{ \*\}}\}}([0-9.]+)\s*$",
                  text, re.M)
    assert m, f"no pinned reference for {prefix} in {file}"
    return m.group(1)


@pytest.mark.parametrize("file,prefix,problem,knobs", CASES, ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_pinned_reference(file, prefix, problem, knobs):
    knobs = dict(knobs)
    seed = knobs.pop("seed", 0)
    x = harness_inputs(knobs.pop("input_seed", 1), problem["shape"])
    if knobs.pop("dtype", "f32") == "bf16":
        x = round_bf16(x)
    x = x.astype(np.float64)
    value = reference.loss(x, seed=seed, num_slices=problem["slices"], num_points=problem["points"],
                           t_max=3.0, **knobs)
    text = pinned(file, prefix)
    decimals = len(text.split(".")[1])
    # FileCheck matches the printed value by its leading digits: the pinned
    # text is the value truncated (or rounded) to `decimals` places.
    assert abs(value - float(text)) <= 10.0**-decimals, (file, prefix, value, text)


def _round(x: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "bf16":
        return round_bf16(x)
    if dtype == "f16":
        return x.astype(np.float16).astype(np.float32)
    return x


@pytest.mark.parametrize("prefix,problem,knobs", GRADIENT_CASES, ids=[c[0] for c in GRADIENT_CASES])
def test_pinned_gradient_norm(prefix, problem, knobs):
    from sigreg import philox

    knobs = dict(knobs)
    dtype = knobs.pop("dtype", "f32")
    explicit = knobs.pop("explicit", False)
    if knobs.get("reduction") == "none":
        knobs["reduction"] = "sum"  # all-ones upstream: the gradient of the sum
    x = _round(harness_inputs(1, problem["shape"]), dtype).astype(np.float64)
    D, S = problem["shape"][-1], problem["slices"]
    A = _round(philox.projection(0, D, S), dtype).astype(np.float64) if explicit else None
    g = reference.gradient(x, A, seed=None if explicit else 0, num_slices=S,
                           num_points=problem["points"], t_max=3.0, **knobs)
    text = (ROOT / "test" / "Integration" / "CPU" / "gradient.mlir").read_text()
    m = re.search(rf"^// {prefix}:\s+reference \|\|dL/dx\|\| \{{\{{ \*\}}\}}([0-9.]+)\s*$", text, re.M)
    assert m, f"no pinned gradient norm for {prefix}"
    decimals = len(m.group(1).split(".")[1])
    assert abs(np.linalg.norm(g) - float(m.group(1))) <= 10.0**-decimals, (prefix, np.linalg.norm(g), m.group(1))
