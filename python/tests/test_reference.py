"""The float64 NumPy reference against docs/CONTRACT.md section 1."""

import numpy as np
import pytest

from sigreg import philox
from sigreg import reference as ref


def _rng(seed):
    return np.random.default_rng(seed)


def _naive_T(x, A, P, t_max, n_global=None):
    """Independent brute force: materializes [V, N, S, P], loops over the trapezoid."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 2:
        x = x[None]
    V, N, D = x.shape
    dt = t_max / (P - 1)
    t = np.array([p * dt for p in range(P)])
    y = np.einsum("vnd,ds->vns", x, A)
    arg = y[..., None] * t  # [V, N, S, P]
    c = np.cos(arg).sum(axis=1) / N
    s = np.sin(arg).sum(axis=1) / N
    T = np.zeros(c.shape[:2])
    for p in range(P):
        phi = np.exp(-t[p] ** 2 / 2)
        wp = dt * phi if p in (0, P - 1) else 2 * dt * phi
        T += wp * ((c[..., p] - phi) ** 2 + s[..., p] ** 2)
    return (N if n_global is None else n_global) * T


def _rel(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return np.linalg.norm(a - b) / np.linalg.norm(b)


def _clip_between(T):
    """A clip value halfway between two well separated middle values of T."""
    v = np.sort(np.ravel(T))
    i = len(v) // 2
    gaps = np.diff(v[len(v) // 4: 3 * len(v) // 4 + 1])
    j = len(v) // 4 + int(np.argmax(gaps))
    return 0.5 * (v[j] + v[j + 1]) if len(v) > 3 else 0.5 * (v[i - 1] + v[i])


# --------------------------------------------------------------------------
# integration grid
# --------------------------------------------------------------------------

@pytest.mark.parametrize("P,t_max", [(3, 1.0), (17, 3.0), (33, 5.0), (9, 2.5)])
def test_integration_grid(P, t_max):
    t, phi, w = ref.integration_grid(P, t_max)
    dt = t_max / (P - 1)
    assert t.shape == phi.shape == w.shape == (P,)
    np.testing.assert_allclose(t, np.arange(P) * dt, rtol=0, atol=1e-15)
    assert t[0] == 0.0 and abs(t[-1] - t_max) < 1e-14
    np.testing.assert_allclose(phi, np.exp(-t * t / 2), rtol=1e-15)
    np.testing.assert_allclose(w[1:-1], 2 * dt * phi[1:-1], rtol=1e-15)
    np.testing.assert_allclose(w[[0, -1]], dt * phi[[0, -1]], rtol=1e-15)
    if P >= 17:  # trapezoid of phi over [-t_max, t_max]
        from math import erf, pi, sqrt

        exact = sqrt(2 * pi) * erf(t_max / sqrt(2))
        assert abs(w.sum() - exact) < 1e-2


@pytest.mark.parametrize("P", [1, 2, 4, 16, 0, -3])
def test_integration_grid_rejects_bad_points(P):
    with pytest.raises(ValueError):
        ref.integration_grid(P, 3.0)


# --------------------------------------------------------------------------
# statistic
# --------------------------------------------------------------------------

@pytest.mark.parametrize("P,t_max", [(3, 3.0), (17, 3.0), (33, 4.0)])
def test_closed_form_identical_rows(P, t_max):
    rng = _rng(10)
    D, S, N = 6, 5, 7
    row = rng.normal(size=D)
    x = np.tile(row, (N, 1))
    A = rng.normal(size=(D, S))
    A /= np.linalg.norm(A, axis=0)
    y = row @ A
    T = ref.statistics(x, A, num_points=P, t_max=t_max)
    dt = t_max / (P - 1)
    exp = np.zeros(S)
    for p in range(P):
        tp = p * dt
        phi = np.exp(-tp * tp / 2)
        wp = (1 if p in (0, P - 1) else 2) * dt * phi
        exp += wp * ((np.cos(tp * y) - phi) ** 2 + np.sin(tp * y) ** 2)
    np.testing.assert_allclose(T, N * exp, rtol=1e-13)


@pytest.mark.parametrize("shape,S,P,t_max", [((13, 7), 5, 3, 3.0), ((3, 11, 9), 4, 17, 3.0),
                                             ((2, 5, 3), 7, 33, 2.0), ((1, 37, 129), 77, 9, 3.0)])
def test_matches_brute_force(shape, S, P, t_max):
    rng = _rng(11)
    x = rng.normal(size=shape) * 1.3 + 0.2
    A = rng.normal(size=(shape[-1], S))
    T = ref.statistics(x, A, num_points=P, t_max=t_max)
    exp = _naive_T(x, A, P, t_max)
    if len(shape) == 2:
        exp = exp[0]
    assert T.shape == exp.shape
    np.testing.assert_allclose(T, exp, rtol=1e-12)


def test_gaussian_data_gives_small_statistic_and_shifted_gives_large():
    rng = _rng(12)
    N, D, S = 4000, 8, 16
    A = philox.projection_f64(3, D, S)
    T_gauss = ref.statistics(rng.normal(size=(N, D)), A)
    T_shift = ref.statistics(rng.normal(size=(N, D)) + 1.0, A)
    assert T_gauss.mean() < 2.0
    assert T_shift.mean() > 20 * T_gauss.mean()


def test_defaults_are_P17_tmax3():
    rng = _rng(13)
    x, A = rng.normal(size=(9, 4)), rng.normal(size=(4, 3))
    np.testing.assert_array_equal(ref.statistics(x, A), ref.statistics(x, A, num_points=17, t_max=3.0))


def test_seeded_projection():
    rng = _rng(14)
    x = rng.normal(size=(10, 12))
    T_seed = ref.statistics(x, seed=77, num_slices=9)
    T_A = ref.statistics(x, philox.projection_f64(77, 12, 9))
    np.testing.assert_array_equal(T_seed, T_A)
    np.testing.assert_allclose(ref.statistics(x, philox.projection(77, 12, 9)), T_A, rtol=1e-5)
    with pytest.raises(ValueError):
        ref.statistics(x)  # neither A nor seed
    with pytest.raises(ValueError):
        ref.statistics(x, seed=1)  # seed without num_slices


# --------------------------------------------------------------------------
# clipping and reductions
# --------------------------------------------------------------------------

def test_clip_modes():
    rng = _rng(15)
    x, A = rng.normal(size=(3, 21, 6)) + 0.3 * rng.normal(size=(3, 1, 6)), rng.normal(size=(6, 11))
    T = ref.statistics(x, A)
    cv = _clip_between(T)
    low = T < cv
    assert low.any() and (~low).any()
    Tz = ref.statistics(x, A, clip_mode="zero_below", clip_value=cv)
    Tc = ref.statistics(x, A, clip_mode="clamp_min", clip_value=cv)
    np.testing.assert_array_equal(Tz, np.where(low, 0.0, T))
    np.testing.assert_array_equal(Tc, np.where(low, cv, T))
    np.testing.assert_array_equal(ref.statistics(x, A, clip_mode="none", clip_value=cv), T)
    # clip at or below min(T) changes nothing
    for mode in ("zero_below", "clamp_min"):
        np.testing.assert_array_equal(ref.statistics(x, A, clip_mode=mode, clip_value=T.min()), T)
    with pytest.raises(ValueError):
        ref.statistics(x, A, clip_mode="clamp")


def test_reductions_and_views():
    rng = _rng(16)
    V, N, D, S = 3, 19, 7, 5
    x, A = rng.normal(size=(V, N, D)), rng.normal(size=(D, S))
    T = ref.loss(x, A, reduction="none")
    assert T.shape == (V, S)
    for v in range(V):  # each view is an independent batch
        np.testing.assert_allclose(T[v], ref.loss(x[v], A, reduction="none"), rtol=1e-14)
    assert ref.loss(x[0], A, reduction="none").shape == (S,)
    assert isinstance(ref.loss(x, A), float)
    np.testing.assert_allclose(ref.loss(x, A, reduction="mean"), T.mean(), rtol=1e-14)
    np.testing.assert_allclose(ref.loss(x, A, reduction="sum"), T.sum(), rtol=1e-14)
    np.testing.assert_allclose(ref.loss(x, A), T.sum() / (V * S), rtol=1e-14)
    with pytest.raises(ValueError):
        ref.loss(x, A, reduction="max")
    with pytest.raises(ValueError):
        ref.loss(rng.normal(size=(2, 2, 2, 2)), A)


# --------------------------------------------------------------------------
# distributed
# --------------------------------------------------------------------------

@pytest.mark.parametrize("W,view", [(2, False), (4, True), (3, False)])
def test_shards_equal_one_big_batch(W, view):
    rng = _rng(17)
    N, D, S = 7, 9, 6
    shape = (2, W * N, D) if view else (W * N, D)
    big = rng.normal(size=shape) * 0.8 + 0.1
    A = rng.normal(size=(D, S))
    shards = [big[..., r * N:(r + 1) * N, :] for r in range(W)]
    for mode, reduction in (("none", "none"), ("zero_below", "mean"), ("clamp_min", "sum")):
        kw = dict(clip_mode=mode, clip_value=0.5, reduction=reduction)
        np.testing.assert_allclose(ref.loss(shards, A, **kw), ref.loss(big, A, **kw), rtol=1e-12)
    np.testing.assert_allclose(ref.loss(shards, A, world_size=W), ref.loss(big, A), rtol=1e-12)


def test_world_size_scales_n_global():
    rng = _rng(18)
    x, A = rng.normal(size=(11, 5)), rng.normal(size=(5, 4))
    T1 = ref.statistics(x, A)
    T4 = ref.statistics(x, A, world_size=4)
    np.testing.assert_allclose(T4, 4 * T1, rtol=1e-14)
    # the same as four ranks holding identical data
    np.testing.assert_allclose(ref.statistics([x] * 4, A), T4, rtol=1e-13)
    with pytest.raises(ValueError):
        ref.statistics([x, x], A, world_size=3)
    with pytest.raises(ValueError):
        ref.statistics([x, x[:5]], A)


# --------------------------------------------------------------------------
# gradient
# --------------------------------------------------------------------------

def _fd_grad(f, x, h=1e-5):
    g = np.zeros_like(x)
    it = np.nditer(x, flags=["multi_index"])
    for _ in it:
        i = it.multi_index
        xp = x.copy()
        xp[i] += h
        xm = x.copy()
        xm[i] -= h
        g[i] = (f(xp) - f(xm)) / (2 * h)
    return g


GRAD_CASES = [
    # shape, S, P, t_max, clip_mode, reduction
    ((5, 7), 3, 5, 3.0, "none", "mean"),
    ((3, 5, 7), 3, 17, 3.0, "none", "sum"),
    ((9, 3), 5, 3, 2.0, "zero_below", "mean"),
    ((2, 7, 5), 9, 33, 4.0, "clamp_min", "mean"),
    ((11, 13), 7, 9, 3.0, "clamp_min", "sum"),
]


@pytest.mark.parametrize("shape,S,P,t_max,clip_mode,reduction", GRAD_CASES)
def test_gradient_finite_differences(shape, S, P, t_max, clip_mode, reduction):
    rng = _rng(19)
    x = rng.normal(size=shape) + 0.3
    A = rng.normal(size=(shape[-1], S))
    A /= np.linalg.norm(A, axis=0)
    cv = 0.0
    if clip_mode != "none":
        T = ref.statistics(x, A, num_points=P, t_max=t_max)
        cv = _clip_between(T)
        gap = np.min(np.abs(T - cv))
        assert gap > 1e-3 * max(1.0, abs(cv))  # FD steps must not cross the clip threshold
    kw = dict(num_points=P, t_max=t_max, clip_mode=clip_mode, clip_value=cv, reduction=reduction)
    g = ref.gradient(x, A, **kw)
    assert g.shape == x.shape
    fd = _fd_grad(lambda z: ref.loss(z, A, **kw), x)
    assert _rel(g, fd) < 1e-6
    if clip_mode != "none":  # clipped slices contribute nothing
        assert np.linalg.norm(g) < np.linalg.norm(ref.gradient(x, A, **{**kw, "clip_mode": "none"})) * 1.5


def test_gradient_fully_clipped_is_zero():
    rng = _rng(20)
    x, A = rng.normal(size=(6, 4)), rng.normal(size=(4, 3))
    for mode in ("zero_below", "clamp_min"):
        g = ref.gradient(x, A, clip_mode=mode, clip_value=1e9)
        assert np.all(g == 0)


def test_gradient_shards_global_convention():
    rng = _rng(21)
    W, N, D, S = 3, 5, 4, 3
    shards = [rng.normal(size=(N, D)) + 0.2 * r for r in range(W)]
    A = rng.normal(size=(D, S))
    grads = ref.gradient(shards, A, num_points=9)
    assert len(grads) == W
    for r in range(W):
        def f(z, r=r):
            parts = list(shards)
            parts[r] = z
            return ref.loss(parts, A, num_points=9)

        assert _rel(grads[r], _fd_grad(f, shards[r])) < 1e-6
    # equals the gradient of one big batch, split back into shards
    big = np.concatenate(shards, axis=0)
    gbig = ref.gradient(big, A, num_points=9)
    for r in range(W):
        np.testing.assert_allclose(grads[r], gbig[r * N:(r + 1) * N], rtol=1e-10, atol=1e-14)
    # the per-rank autograd-through-all_reduce convention is W times larger
    ga = ref.gradient(shards, A, num_points=9, convention="autograd_all_reduce")
    for r in range(W):
        np.testing.assert_allclose(ga[r], W * grads[r], rtol=1e-14)


def test_gradient_seeded_and_errors():
    rng = _rng(22)
    x = rng.normal(size=(7, 5))
    g1 = ref.gradient(x, seed=3, num_slices=4)
    g2 = ref.gradient(x, philox.projection_f64(3, 5, 4))
    np.testing.assert_array_equal(g1, g2)
    with pytest.raises(ValueError):
        ref.gradient(x, seed=3, num_slices=4, reduction="none")
    with pytest.raises(ValueError):
        ref.gradient(x, seed=3, num_slices=4, convention="bogus")
