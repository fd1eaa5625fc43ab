"""Philox4x32-10, the correctly rounded f32 fma, and the projection mapping."""

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from sigreg import philox

REPO = Path(__file__).resolve().parents[2]
VECTORS = REPO / "test" / "vectors" / "projection_vectors.txt"


# --------------------------------------------------------------------------
# Philox known answers (Random123 kat_vectors, PROJECTION.md section 1)
# --------------------------------------------------------------------------

KAT = [
    ((0x00000000, 0x00000000, 0x00000000, 0x00000000), (0x00000000, 0x00000000),
     (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF),
     (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


@pytest.mark.parametrize("ctr,key,out", KAT)
def test_philox_kat(ctr, key, out):
    got = philox.philox4x32_10(ctr, key)
    assert tuple(int(v) for v in got) == out


def _philox_scalar(ctr, key):
    """Plain-int Philox, independent of the vectorized code."""
    c = list(ctr)
    k0, k1 = key
    for rnd in range(10):
        if rnd:
            k0 = (k0 + philox.W0) & 0xFFFFFFFF
            k1 = (k1 + philox.W1) & 0xFFFFFFFF
        p0 = philox.M0 * c[0]
        p1 = philox.M1 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & 0xFFFFFFFF, (p0 >> 32) ^ c[3] ^ k1, p0 & 0xFFFFFFFF]
    return tuple(c)


def test_philox_vectorized_matches_scalar():
    rng = np.random.default_rng(1)
    ctr = rng.integers(0, 2**32, size=(4, 200), dtype=np.uint64).astype(np.uint32)
    key = rng.integers(0, 2**32, size=(2, 200), dtype=np.uint64).astype(np.uint32)
    out = np.stack(philox.philox4x32_10(tuple(ctr), tuple(key)))
    for i in range(200):
        exp = _philox_scalar(tuple(int(v) for v in ctr[:, i]), tuple(int(v) for v in key[:, i]))
        assert tuple(int(v) for v in out[:, i]) == exp


# --------------------------------------------------------------------------
# fma: compare against exact rational arithmetic
# --------------------------------------------------------------------------

F32_MAX = Fraction(float(np.finfo(np.float32).max))


def _round_f32_exact(v: Fraction, zero_sign: float) -> np.float32:
    """Round a rational to float32, round-to-nearest-even (slow, exact)."""
    if v == 0:
        return np.float32(zero_sign)
    sign = -1 if v < 0 else 1
    a = abs(v)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    e = max(e, -126)  # subnormals share the ulp of the smallest normal binade
    ulp = Fraction(2) ** (e - 23)
    q = a / ulp
    n = q.numerator // q.denominator
    rem = q - n
    if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2 == 1):
        n += 1
    res = n * ulp
    if res > F32_MAX:
        return np.float32(sign * np.inf)
    return np.float32(sign * float(res))


def _fma_exact(a, b, c) -> np.float32:
    a, b, c = (np.float32(v) for v in (a, b, c))
    v = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    # sign of an exact zero result in round-to-nearest: -0 only if both addends are -0
    prod_neg = np.signbit(a) != np.signbit(b)
    zero_sign = -0.0 if (prod_neg and np.signbit(c)) else 0.0
    return _round_f32_exact(v, zero_sign)


def _check_fma(a, b, c):
    a = np.asarray(a, dtype=np.float32)
    b = np.asarray(b, dtype=np.float32)
    c = np.asarray(c, dtype=np.float32)
    got = philox.fma_f32(a, b, c)
    bad = []
    for i in range(a.size):
        exp = _fma_exact(a.flat[i], b.flat[i], c.flat[i])
        g = got.flat[i]
        if np.isnan(exp):
            ok = np.isnan(g)
        else:
            ok = g.view(np.uint32) == exp.view(np.uint32)
        if not ok:
            bad.append((a.flat[i], b.flat[i], c.flat[i], g, exp))
    assert not bad, f"{len(bad)} fma mismatches, first: {bad[:3]}"


def _rand_f32(rng, n, emin=-30, emax=30):
    m = rng.uniform(1.0, 2.0, n)
    e = rng.integers(emin, emax, n)
    s = rng.choice([-1.0, 1.0], n)
    return (s * np.ldexp(m, e)).astype(np.float32)


def test_fma_random():
    rng = np.random.default_rng(2)
    n = 3000
    _check_fma(_rand_f32(rng, n), _rand_f32(rng, n), _rand_f32(rng, n))


def test_fma_random_bits():
    rng = np.random.default_rng(3)
    n = 3000
    bits = rng.integers(0, 2**32, size=(3, n), dtype=np.uint64).astype(np.uint32)
    a, b, c = (x.view(np.float32) for x in bits)
    fin = np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
    _check_fma(a[fin], b[fin], c[fin])


def test_fma_cancellation_and_subnormal():
    rng = np.random.default_rng(4)
    n = 2000
    a = _rand_f32(rng, n, -20, 20)
    b = _rand_f32(rng, n, -20, 20)
    c = (-(a.astype(np.float64) * b.astype(np.float64))).astype(np.float32)  # near-total cancellation
    _check_fma(a, b, c)
    # tiny products near and below the f32 subnormal range
    a2 = _rand_f32(rng, n, -80, -60)
    b2 = _rand_f32(rng, n, -80, -60)
    c2 = np.where(rng.random(n) < 0.5, np.float32(0), _rand_f32(rng, n, -150, -126)).astype(np.float32)
    _check_fma(a2, b2, c2)
    # polynomial-like ranges (as used by the mapping)
    _check_fma(_rand_f32(rng, n, -3, 1), _rand_f32(rng, n, -6, 1), _rand_f32(rng, n, -20, 1))


def _halfway_cases(rng, n):
    """a*b + c whose float64 sum is exactly a float32 midpoint, with a nonzero error.

    With u = 1 + k 2^-23 and v = 1 - k 2^-23 (k < 362), u*v = 1 - k^2 2^-46. Scaling
    by h = ulp32(c)/2 gives a product h - h k^2 2^-46 whose deviation lies below half a
    float64 ulp of c, so the float64 sum rounds to the midpoint c + h (or c' - h).
    """
    A, B, C = [], [], []
    for _ in range(n):
        ce = int(rng.integers(-60, 60))
        cm = int(rng.integers(2**23, 2**24))  # 24-bit significand
        c = float(np.ldexp(cm, ce - 23))  # ulp(c) = 2^(ce-23)
        h_exp = ce - 24  # h = ulp/2
        k = int(rng.integers(1, 362))
        u = 1.0 + k * 2.0**-23
        v = 1.0 - k * 2.0**-23
        split = int(rng.integers(-10, 10))
        a = np.ldexp(u, split)
        b = np.ldexp(v, h_exp - split)
        kind = int(rng.integers(0, 4))
        if kind == 0:  # c + (h - tiny): midpoint, error negative
            A.append(a)
            B.append(b)
            C.append(c)
        elif kind == 1:  # (c + ulp) - (h - tiny): midpoint, error positive
            A.append(-a)
            B.append(b)
            C.append(c + 2.0 ** (ce - 23))
        elif kind == 2:  # negative mirror of kind 0
            A.append(-a)
            B.append(b)
            C.append(-c)
        else:  # negative mirror of kind 1
            A.append(a)
            B.append(b)
            C.append(-(c + 2.0 ** (ce - 23)))
    return (np.array(A, dtype=np.float32), np.array(B, dtype=np.float32), np.array(C, dtype=np.float32))


def test_fma_halfway_cases():
    rng = np.random.default_rng(5)
    a, b, c = _halfway_cases(rng, 2000)
    # make sure these really are double-rounding traps: the naive float64 route fails on many
    naive = (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float32)
    exact = np.array([_fma_exact(*t) for t in zip(a, b, c)], dtype=np.float32)
    assert np.count_nonzero(naive.view(np.uint32) != exact.view(np.uint32)) > 100
    _check_fma(a, b, c)


def test_fma_fixed_halfway_examples():
    # 2^30 + 128 + (64 - 2^-40): float64 sum is the midpoint 2^30 + 192; exact is below
    a = np.float32(8 * (1 + 2**-23))
    b = np.float32(8 * (1 - 2**-23))
    c = np.float32(2**30 + 128)
    assert philox.fma_f32(a, b, c) == np.float32(2**30 + 128)
    # and above: (2^30 + 256) - (64 - 2^-40) -> exact above the midpoint 2^30 + 192
    assert philox.fma_f32(-a, b, np.float32(2**30 + 256)) == np.float32(2**30 + 256)
    # overflow boundary
    fmax = np.finfo(np.float32).max
    _check_fma(np.float32([fmax, fmax, 2.0]), np.float32([1.0, 1.5, fmax]), np.float32([fmax, 0, -fmax]))


def test_fma_exact_ties_use_even():
    # exact midpoints (error term zero) must round to even, like hardware fma
    a = np.float32([1.0, 1.0, -1.0, 3.0])
    b = np.float32([2.0**-24, 3 * 2.0**-24, 2.0**-24, 2.0**-24])
    c = np.float32([1.0, 1.0, -1.0, 1.0])
    _check_fma(a, b, c)


def test_fma_broadcast_and_dtype():
    out = philox.fma_f32(np.float32(2), np.arange(4, dtype=np.float32), np.float32(1))
    assert out.dtype == np.float32 and out.tolist() == [1.0, 3.0, 5.0, 7.0]


# --------------------------------------------------------------------------
# Projection mapping
# --------------------------------------------------------------------------

def _gaussian_scalar(seed, d, s):
    """Independent scalar evaluation of the mapping (plain ints, np.float32, exact fma)."""
    f32 = np.float32
    seed &= 0xFFFFFFFFFFFFFFFF
    words = _philox_scalar((d // 4, s, 0, 0), (seed & 0xFFFFFFFF, seed >> 32))
    x0, x1 = words[2 * ((d // 2) % 2): 2 * ((d // 2) % 2) + 2]
    n = (x0 >> 8) + 1
    j = x1 >> 8
    q = j >> 22
    fr = f32(j & 0x3FFFFF) * f32(2.0**-22)
    nf = f32(n)
    bits = int(np.array(nf).view(np.uint32))
    e = (bits >> 23) - 127
    m = np.array((bits & 0x7FFFFF) | 0x3F800000, dtype=np.uint32).view(np.float32)[()]
    sv = (m - f32(1)) / (m + f32(1))
    z = sv * sv
    C = [f32(1.0 / (2 * k + 1)) for k in range(9)]
    p = C[8]
    for k in range(7, -1, -1):
        p = _fma_exact(p, z, C[k])
    lnm = (sv + sv) * p
    lnu = _fma_exact(f32(e - 24), f32(0.6931471805599453), lnm)
    r = np.sqrt(f32(-2) * lnu)
    theta = fr * f32(1.5707963267948966)
    t2 = theta * theta
    import math

    KC = [f32((-1) ** k / math.factorial(2 * k)) for k in range(8)]
    KS = [f32((-1) ** k / math.factorial(2 * k + 1)) for k in range(8)]
    pc = KC[7]
    for k in range(6, -1, -1):
        pc = _fma_exact(pc, t2, KC[k])
    ps = KS[7]
    for k in range(6, -1, -1):
        ps = _fma_exact(ps, t2, KS[k])
    sinv = theta * ps
    if d % 2:  # the sine of the pair: sin(2 pi u2)
        c = [sinv, pc, -sinv, -pc][q]
    else:  # cos(2 pi u2)
        c = [pc, -sinv, -pc, sinv][q]
    return f32(r * c)


def test_gaussian_matches_scalar_mapping():
    for seed in (0, 1, 12345, -1, 2**63 + 17, 0xDEADBEEFCAFEF00D):
        g = philox.projection_gaussian(seed, 7, 5)
        for d in range(7):
            for s in range(5):
                exp = _gaussian_scalar(seed, d, s)
                assert g[d, s].view(np.uint32) == exp.view(np.uint32), (seed, d, s)


def test_gaussian_edge_inputs():
    # n = 2^24 gives r = 0 exactly; n = 1 gives the largest radius; quadrants
    x0 = np.array([0xFFFFFFFF, 0x000000FF, 0x12345678, 0x12345678, 0x12345678, 0x12345678], dtype=np.uint32)
    x1 = np.array([0x00000000, 0x00000000, 0x00000000, 0x40000000, 0x80000000, 0xC0000000], dtype=np.uint32)
    g = philox.gaussian_from_bits(x0, x1)
    assert g[0] == 0.0
    assert abs(float(g[1]) - np.sqrt(-2 * np.log(2.0**-24))) < 1e-5
    r = np.sqrt(-2 * np.log(((0x12345678 >> 8) + 1) * 2.0**-24))
    np.testing.assert_allclose(g[2:].astype(np.float64), [r, 0.0, -r, 0.0], atol=1e-6)


def test_gaussian_is_standard_normal():
    g = philox.projection_gaussian(7, 300, 300).astype(np.float64).ravel()
    assert abs(g.mean()) < 0.01
    assert abs(g.std() - 1) < 0.01
    assert abs(np.mean(g**4) - 3) < 0.1


def test_gaussian_against_libm():
    # the mapping approximates sqrt(-2 log u1) cos(2 pi u2) to about 1e-7 * scale
    seed = 99
    k0, k1 = seed & 0xFFFFFFFF, seed >> 32
    d = np.arange(64, dtype=np.uint32)[:, None]
    s = np.arange(64, dtype=np.uint32)[None, :]
    w = philox.philox4x32_10((d // 4, s, 0, 0), (k0, k1))
    second = (d // 2) % 2 == 1
    x0 = np.where(second, w[2], w[0])
    x1 = np.where(second, w[3], w[1])
    u1 = ((x0 >> 8).astype(np.float64) + 1) * 2.0**-24
    u2 = (x1 >> 8).astype(np.float64) * 2.0**-24
    trig = np.where(d % 2 == 1, np.sin(2 * np.pi * u2), np.cos(2 * np.pi * u2))
    exp = np.sqrt(-2 * np.log(u1)) * trig
    g = philox.projection_gaussian(seed, 64, 64).astype(np.float64)
    err = np.abs(g - exp)
    # near u1 = 1 the radius sqrt(-2 log u1) is ill-conditioned (f32 log cancels)
    r = np.sqrt(-2 * np.log(u1))
    assert np.max(err[r > 0.05]) < 2e-6
    assert np.max(err) < 1e-4


def test_fast_mapping_matches_exact():
    # Section 7 (the GPU's fast-normals mapping) names the same normals as
    # sections 3-5: the same pair and cosine/sine convention (a wrong sign or
    # angle shift would be O(1)). With exact functions in place of the
    # GPU's approximate ones it is within 2e-6 of float64's
    # sqrt(-2 ln u1) cos/sin(2 pi u2); the exact mapping itself is off by up to
    # 1.5e-4 where u1 is within a few ulps of 1 (its f32 log cancels).
    rng = np.random.default_rng(5)
    x0 = rng.integers(0, 2**32, size=200000, dtype=np.uint64).astype(np.uint32)
    x1 = rng.integers(0, 2**32, size=200000, dtype=np.uint64).astype(np.uint32)
    # edges: u1 = 1 (r = 0), u1 = 1 - 2^-24, u1 = 2^-24 (largest r), quadrants
    x0 = np.concatenate([x0, np.array([0xFFFFFFFF, 0xFFFFFEFF, 0, 0xFF] * 4, dtype=np.uint32)])
    x1 = np.concatenate([x1, np.repeat(np.array([0, 0x40000000, 0x80000000, 0xC00000FF], dtype=np.uint32), 4)])
    u1 = ((x0 >> 8).astype(np.float64) + 1) * 2.0**-24
    u2 = (x1 >> 8).astype(np.float64) * 2.0**-24
    for sine in (False, True):
        trig = np.sin(2 * np.pi * u2) if sine else np.cos(2 * np.pi * u2)
        truth = np.sqrt(-2 * np.log(u1)) * trig
        exact = philox.gaussian_from_bits(x0, x1, sine).astype(np.float64)
        fast = philox.fast_gaussian_from_bits(x0, x1, sine).astype(np.float64)
        assert np.max(np.abs(fast - truth)) < 2e-6
        assert np.max(np.abs(fast - exact)) < 2e-4
    assert philox.fast_gaussian_from_bits(0xFFFFFFFF, 0x12345678)[()] == 0.0


def test_projection_normalization():
    seed, D, S = 2024, 37, 11
    g = philox.projection_gaussian(seed, D, S)
    A = philox.projection(seed, D, S)
    assert A.dtype == np.float32 and A.shape == (D, S)
    # CPU order: sequential f32 adds of f32 squares in ascending d
    for s in range(S):
        acc = np.float32(0)
        for d in range(D):
            acc = np.float32(acc + np.float32(g[d, s] * g[d, s]))
        norm = np.sqrt(acc)
        col = (g[:, s] / norm).astype(np.float32)
        assert np.array_equal(col.view(np.uint32), A[:, s].view(np.uint32))
    A64 = philox.projection_f64(seed, D, S)
    np.testing.assert_allclose(np.linalg.norm(A64, axis=0), 1.0, rtol=1e-14)
    np.testing.assert_allclose(A.astype(np.float64), A64, rtol=0, atol=1e-6)


def test_seed_is_i64_reinterpreted():
    assert np.array_equal(philox.projection_gaussian(-1, 3, 3), philox.projection_gaussian(2**64 - 1, 3, 3))
    assert not np.array_equal(philox.projection_gaussian(1, 3, 3), philox.projection_gaussian(1 + 2**32, 3, 3))


def test_element_depends_only_on_seed_d_s():
    big = philox.projection_gaussian(5, 20, 30)
    small = philox.projection_gaussian(5, 7, 9)
    assert np.array_equal(big[:7, :9], small)


# --------------------------------------------------------------------------
# Shared vectors with the C++ implementation (test/vectors/projection_vectors.txt)
# --------------------------------------------------------------------------

def _parse_vectors(path):
    data, kats = [], []
    for lineno, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        tok = line.split()
        if tok[0] == "philox":
            assert len(tok) == 11, f"line {lineno}: bad philox line"
            vals = [int(v, 16) for v in tok[1:]]
            kats.append((tuple(vals[0:4]), tuple(vals[4:6]), tuple(vals[6:10])))
        else:
            assert len(tok) == 7, f"line {lineno}: expected 'seed d s D S g_hex A_hex'"
            seed = int(tok[0], 0)
            d, s, D, S = (int(v, 0) for v in tok[1:5])
            a_bits = None if tok[6] == "-" else int(tok[6], 16)  # D = S = 0: g only
            data.append((seed, d, s, D, S, int(tok[5], 16), a_bits))
    return data, kats


def _need_vectors():
    if not VECTORS.exists():
        pytest.skip(f"shared vector file {VECTORS.relative_to(REPO)} not present yet (written by the C++ side)")


def test_shared_philox_vectors():
    _need_vectors()
    _, kats = _parse_vectors(VECTORS)
    if not kats:
        pytest.skip("no philox lines in the shared vector file")
    for ctr, key, out in kats:
        got = tuple(int(v) for v in philox.philox4x32_10(ctr, key))
        assert got == out, (ctr, key)


def test_shared_projection_vectors():
    _need_vectors()
    data, _ = _parse_vectors(VECTORS)
    assert data, "shared vector file has no projection lines"
    cache = {}
    mismatches = []
    n_a = 0
    for seed, d, s, D, S, g_bits, a_bits in data:
        got_g = int(philox.gaussian_at(seed, d, s).view(np.uint32))
        got_a = None
        if a_bits is not None:
            assert 0 <= d < D and 0 <= s < S
            key = (seed, D, S)
            if key not in cache:
                g, A = philox.projection_gaussian(seed, D, S), philox.projection(seed, D, S)
                assert int(g[d, s].view(np.uint32)) == got_g
                cache[key] = A
            got_a = int(cache[key][d, s].view(np.uint32))
            n_a += 1
        if got_g != g_bits or got_a != a_bits:
            mismatches.append((seed, d, s, D, S, f"g {got_g:08x} vs {g_bits:08x}", f"A {got_a} vs {a_bits}"))
    assert not mismatches, f"{len(mismatches)}/{len(data)} mismatches, first: {mismatches[:5]}"
    assert n_a > 0, "no normalized-A entries in the shared vector file"
