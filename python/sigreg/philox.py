"""Bit-exact NumPy implementation of the projection generator (docs/PROJECTION.md).

Everything here is vectorized. Integer work is done in uint32/uint64; every
floating-point operation of the mapping is done in np.float32 (IEEE correctly
rounded ``+ - * / sqrt``), and the fused multiply-adds are done by
:func:`fma_f32`, a correctly rounded single-precision fma emulated in float64.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "philox4x32_10",
    "fma_f32",
    "gaussian_at",
    "gaussian_from_bits",
    "projection_gaussian",
    "projection",
    "projection_f64",
    "M0",
    "M1",
    "W0",
    "W1",
]

M0 = 0xD2511F53
M1 = 0xCD9E8D57
W0 = 0x9E3779B9
W1 = 0xBB67AE85

_MASK32 = np.uint64(0xFFFFFFFF)
_SHIFT32 = np.uint64(32)
_FLT_MAX = np.float32(np.finfo(np.float32).max)
_OVF_MID = float(2 ** 128 - 2 ** 103)


def _u32(a) -> np.ndarray:
    """Any integer array-like -> uint32 array (values taken mod 2^32)."""
    arr = np.asarray(a)
    if arr.dtype == np.uint32:
        return arr
    if arr.dtype.kind in "iu":
        return (arr.astype(np.uint64) & _MASK32).astype(np.uint32)
    if arr.dtype == object:
        return np.vectorize(lambda v: int(v) & 0xFFFFFFFF, otypes=[np.uint32])(arr)
    raise TypeError(f"expected integers, got {arr.dtype}")


def philox4x32_10(ctr, key):
    """Philox4x32 with 10 rounds (Random123).

    ``ctr`` is a sequence of four uint32 arrays (or scalars) c0..c3, ``key`` a
    sequence of two, k0 and k1. All are broadcast together. Returns a tuple of
    four uint32 arrays.
    """
    c0, c1, c2, c3 = (_u32(c) for c in ctr)
    k0, k1 = (_u32(k) for k in key)
    c0, c1, c2, c3, k0, k1 = np.broadcast_arrays(c0, c1, c2, c3, k0, k1)
    c0, c1, c2, c3 = (c.astype(np.uint32, copy=True) for c in (c0, c1, c2, c3))
    k0 = k0.astype(np.uint32, copy=True)
    k1 = k1.astype(np.uint32, copy=True)
    m0 = np.uint64(M0)
    m1 = np.uint64(M1)
    w0 = np.uint32(W0)
    w1 = np.uint32(W1)
    with np.errstate(over="ignore"):
        for rnd in range(10):
            if rnd > 0:
                k0 = k0 + w0  # uint32 wrap-around
                k1 = k1 + w1
            p0 = m0 * c0.astype(np.uint64)
            p1 = m1 * c2.astype(np.uint64)
            hi0 = (p0 >> _SHIFT32).astype(np.uint32)
            lo0 = (p0 & _MASK32).astype(np.uint32)
            hi1 = (p1 >> _SHIFT32).astype(np.uint32)
            lo1 = (p1 & _MASK32).astype(np.uint32)
            c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    return c0, c1, c2, c3


# ---------------------------------------------------------------------------
# Correctly rounded float32 fma
# ---------------------------------------------------------------------------

def fma_f32(a, b, c) -> np.ndarray:
    """Correctly rounded (round-to-nearest-even) float32 ``a*b + c``.

    a*b of two float32 values is exact in float64 (48 significant bits). The
    float64 sum ``s = p + c`` is rounded once; TwoSum gives the exact error
    ``e`` with ``p + c = s + e``. Rounding ``s`` to float32 equals rounding the
    exact value except when ``s`` is exactly halfway between two float32
    values (float32 midpoints are float64 numbers, so a value and its float64
    rounding lie on the same side of any midpoint other than ``s`` itself) and
    ``e != 0``: then the exact value lies on the side of ``sign(e)``.
    """
    a = np.asarray(a, dtype=np.float32)
    b = np.asarray(b, dtype=np.float32)
    c = np.asarray(c, dtype=np.float32)
    a, b, c = np.broadcast_arrays(a, b, c)
    with np.errstate(over="ignore", invalid="ignore"):
        p = a.astype(np.float64) * b.astype(np.float64)  # exact
        c64 = c.astype(np.float64)
        s = p + c64
        # TwoSum (Knuth): exact error of the float64 addition.
        bb = s - p
        e = (p - (s - bb)) + (c64 - bb)
        r = s.astype(np.float32)  # round-to-nearest-even of s
        r64 = r.astype(np.float64)
        finite = np.isfinite(s) & np.isfinite(r64)
        # neighbour of r on the side of s
        toward = np.where(s > r64, np.float32(np.inf), np.float32(-np.inf)).astype(np.float32)
        other = np.nextafter(r, toward)
        other64 = other.astype(np.float64)
        mid = (r64 + other64) * 0.5  # exact: sum of adjacent floats, no overflow when finite
        is_mid = finite & np.isfinite(other64) & (s != r64) & (mid == s) & (e != 0)
        # On a midpoint the exact value s + e lies on the side of sign(e);
        # ties-to-even put r on the side of sign(r64 - s). Fix disagreements.
        wrong = is_mid & (((r64 > s) & (e < 0)) | ((r64 < s) & (e > 0)))
        out = np.where(wrong, other, r)
        # The midpoint between FLT_MAX and 2^128 rounds to inf by ties-to-even;
        # just below it (e pointing toward zero) the answer is FLT_MAX.
        below_ovf = (np.abs(s) == _OVF_MID) & (e * np.sign(s) < 0)
        out = np.where(below_ovf, np.copysign(_FLT_MAX, s).astype(np.float32), out)
    return out.astype(np.float32)


# ---------------------------------------------------------------------------
# Projection mapping
# ---------------------------------------------------------------------------

_F = np.float32
_C = [_F(1.0 / (2 * k + 1)) for k in range(9)]
_LN2 = _F(0.6931471805599453)
_HALF_PI = _F(1.5707963267948966)


def _fact(n: int) -> int:
    out = 1
    for i in range(2, n + 1):
        out *= i
    return out


_KC = [_F((-1) ** k / _fact(2 * k)) for k in range(8)]
_KS = [_F((-1) ** k / _fact(2 * k + 1)) for k in range(8)]


def _split_seed(seed: int):
    s = int(seed) & 0xFFFFFFFFFFFFFFFF  # i64 reinterpreted as u64
    return np.uint32(s & 0xFFFFFFFF), np.uint32(s >> 32)


def gaussian_from_bits(x0, x1, sine=False) -> np.ndarray:
    """Sections 3-5 of PROJECTION.md: two uint32 words -> float32 g.

    ``sine`` (broadcast bool) selects the second normal of the Box-Muller pair
    (the odd rows), sin(2 pi u2) = cos(2 pi u2 - pi/2): the quadrant before.
    """
    x0 = _u32(x0)
    x1 = _u32(x1)
    n = (x0 >> np.uint32(8)).astype(np.uint32) + np.uint32(1)  # [1, 2^24]
    j = (x1 >> np.uint32(8)).astype(np.uint32)
    q = (j >> np.uint32(22)).astype(np.int64)
    q = np.where(np.asarray(sine, dtype=bool), (q + 3) & 3, q)
    f = (j & np.uint32(0x3FFFFF)).astype(np.float32) * _F(2.0 ** -22)

    # log(u1)
    nf = n.astype(np.float32)  # exact
    bits = nf.view(np.uint32)
    e = (bits >> np.uint32(23)).astype(np.int64) - 127
    m = ((bits & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)).view(np.float32)
    s = (m - _F(1.0)) / (m + _F(1.0))
    z = s * s
    p = np.full(z.shape, _C[8], dtype=np.float32)
    for k in range(7, -1, -1):
        p = fma_f32(p, z, _C[k])
    lnm = (s + s) * p
    lnu = fma_f32((e - 24).astype(np.float32), _LN2, lnm)
    r = np.sqrt(_F(-2.0) * lnu)

    # cos(2 pi u2)
    theta = f * _HALF_PI
    t2 = theta * theta
    pc = np.full(t2.shape, _KC[7], dtype=np.float32)
    for k in range(6, -1, -1):
        pc = fma_f32(pc, t2, _KC[k])
    ps = np.full(t2.shape, _KS[7], dtype=np.float32)
    for k in range(6, -1, -1):
        ps = fma_f32(ps, t2, _KS[k])
    cosv = pc
    sinv = theta * ps
    c = np.select([q == 0, q == 1, q == 2], [cosv, -sinv, -cosv], default=sinv)
    c = c.astype(np.float32)
    return (r * c).astype(np.float32)


def fast_gaussian_from_bits(x0, x1, sine=False) -> np.ndarray:
    """Section 7 of PROJECTION.md (the GPU's fast-normals mapping) with exact
    functions in place of the GPU's approximate ones: float32 g.

    The GPU kernels evaluate log2, cos and sin with lg2/cos/sin.approx.f32,
    whose own errors (at most 2^-22 and 2^-20.9 absolute on these inputs)
    come on top; this model defines the arithmetic and the sign conventions.
    """
    x0 = _u32(x0)
    x1 = _u32(x1)
    n = (x0 >> np.uint32(8)).astype(np.uint32) + np.uint32(1)
    u1 = n.astype(np.float32) * _F(2.0 ** -24)  # exact
    log2u = np.log2(u1.astype(np.float64)).astype(np.float32)
    radius2 = np.maximum(log2u * _F(-2.0 * 0.6931471805599453), _F(0.0))
    neg_r = -np.sqrt(radius2)
    j = (x1 >> np.uint32(8)).astype(np.float32)  # exact
    angle = fma_f32(j, _F(2.0 * np.pi / 16777216.0), _F(-np.pi))
    a = angle.astype(np.float64)
    trig = np.where(np.asarray(sine, dtype=bool), np.sin(a), np.cos(a))
    return (neg_r * trig.astype(np.float32)).astype(np.float32)


def gaussian_at(seed: int, d, s) -> np.ndarray:
    """g[d, s] for arbitrary (broadcast) uint32 index arrays d and s: float32."""
    k0, k1 = _split_seed(seed)
    d = _u32(d)
    s = _u32(s)
    zero = np.uint32(0)
    # Section 2: one Philox call per group of four rows 4 (d / 4) .. + 3;
    # rows 0, 1 use words (x0, x1), rows 2, 3 use (x2, x3), odd rows the sine.
    x0, x1, x2, x3 = philox4x32_10((d >> np.uint32(2), s, zero, zero), (k0, k1))
    second = (d & np.uint32(2)) != 0
    return gaussian_from_bits(np.where(second, x2, x0), np.where(second, x3, x1),
                              (d & np.uint32(1)) != 0)


def projection_gaussian(seed: int, D: int, S: int) -> np.ndarray:
    """Raw standard-normal matrix g[d, s], float32 [D, S], bit-exact."""
    if D < 0 or S < 0:
        raise ValueError("D and S must be non-negative")
    d = np.arange(D, dtype=np.uint32)[:, None]
    s = np.arange(S, dtype=np.uint32)[None, :]
    return gaussian_at(seed, d, s).reshape(D, S)


def projection(seed: int, D: int, S: int) -> np.ndarray:
    """Normalized projection, float32 [D, S], CPU order (bit-exact).

    norm[s] = sqrt(sum_d g[d,s]^2) with sequential float32 adds in ascending d
    (each square rounded to float32 first); A = g / norm in float32.
    """
    g = projection_gaussian(seed, D, S)
    acc = np.zeros(S, dtype=np.float32)
    for d in range(D):
        row = g[d]
        acc = acc + row * row
    norm = np.sqrt(acc)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (g / norm[None, :]).astype(np.float32)


def projection_f64(seed: int, D: int, S: int) -> np.ndarray:
    """The bit-exact g, normalized in float64: float64 [D, S]."""
    g = projection_gaussian(seed, D, S).astype(np.float64)
    return g / np.sqrt(np.sum(g * g, axis=0))[None, :]
