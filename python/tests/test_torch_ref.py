"""PyTorch references: autograd vs the analytic gradient, eager vs float64 (skip without torch)."""

import numpy as np
import pytest

from sigreg import reference as ref

torch = pytest.importorskip("torch", reason="torch not installed (optional extra)")
from sigreg import torch_ref  # noqa: E402


def _clip_between(T):
    """Clip value halfway inside the widest gap among the middle values of T (never equal to a T)."""
    v = np.sort(np.ravel(T))
    lo = len(v) // 4
    i = lo + int(np.argmax(np.diff(v[lo: 3 * len(v) // 4 + 1])))
    return float(0.5 * (v[i] + v[i + 1]))


def _rel(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return np.linalg.norm(a - b) / np.linalg.norm(b)


CASES = [
    ((5, 7), 3, 5, 3.0, "none", "mean"),
    ((3, 5, 7), 4, 17, 3.0, "none", "sum"),
    ((2, 9, 5), 9, 33, 4.0, "clamp_min", "mean"),
    ((13, 6), 7, 9, 3.0, "zero_below", "sum"),
]


@pytest.mark.parametrize("shape,S,P,t_max,clip_mode,reduction", CASES)
def test_autograd_matches_analytic_gradient(shape, S, P, t_max, clip_mode, reduction):
    rng = np.random.default_rng(30)
    x = rng.normal(size=shape) + 0.3
    A = rng.normal(size=(shape[-1], S))
    A /= np.linalg.norm(A, axis=0)
    cv = _clip_between(ref.statistics(x, A, num_points=P, t_max=t_max)) if clip_mode != "none" else 0.0
    kw = dict(num_points=P, t_max=t_max, clip_mode=clip_mode, clip_value=cv, reduction=reduction)
    xt = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    L = torch_ref.loss_f64(xt, torch.tensor(A), **kw)
    L.backward()
    np.testing.assert_allclose(L.item(), ref.loss(x, A, **kw), rtol=1e-12)
    assert _rel(xt.grad.numpy(), ref.gradient(x, A, **kw)) < 1e-10


def test_autograd_shards():
    rng = np.random.default_rng(31)
    W, N, D, S = 3, 6, 5, 4
    xs = [rng.normal(size=(N, D)) for _ in range(W)]
    A = rng.normal(size=(D, S))
    ts = [torch.tensor(v, requires_grad=True) for v in xs]
    L = torch_ref.loss_f64(ts, torch.tensor(A), num_points=9)
    L.backward()
    np.testing.assert_allclose(L.item(), ref.loss(xs, A, num_points=9), rtol=1e-12)
    for t, g in zip(ts, ref.gradient(xs, A, num_points=9)):
        assert _rel(t.grad.numpy(), g) < 1e-10


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("clip_mode", ["none", "zero_below", "clamp_min"])
def test_eager_matches_reference(reduction, clip_mode):
    rng = np.random.default_rng(32)
    x = rng.normal(size=(3, 37, 29)).astype(np.float32)
    A = rng.normal(size=(29, 17)).astype(np.float32)
    A /= np.linalg.norm(A, axis=0)
    cv = 0.0
    if clip_mode != "none":
        cv = _clip_between(ref.statistics(x.astype(np.float64), A.astype(np.float64), num_points=9))
    kw = dict(num_points=9, t_max=3.0, clip_mode=clip_mode, clip_value=cv, reduction=reduction)
    got = torch_ref.sigreg_eager(torch.tensor(x), torch.tensor(A), **kw)
    exp = ref.loss(x.astype(np.float64), A.astype(np.float64), **kw)
    assert _rel(got.double().numpy(), exp) < 1e-4


def test_eager_generates_projection():
    g1 = torch.Generator().manual_seed(5)
    g2 = torch.Generator().manual_seed(5)
    x = torch.randn(16, 12, dtype=torch.float32)
    A = torch_ref.make_projection(12, 10, generator=g1)
    torch.testing.assert_close(A.norm(dim=0), torch.ones(10))
    a = torch_ref.sigreg_eager(x, A, num_points=5)
    b = torch_ref.sigreg_eager(x, num_slices=10, num_points=5, generator=g2)
    assert torch.equal(a, b)
    with pytest.raises(ValueError):
        torch_ref.sigreg_eager(x)
