"""sigreg.capi on a machine without a GPU: the C ABI library loads and fails cleanly."""

from __future__ import annotations

import ctypes

import pytest

from sigreg import capi
from sigreg import compile as sc

pytestmark = pytest.mark.skipif(capi.library_path() is None, reason="libsigreg_aot.so not built")


def test_library_exports_the_c_abi():
    lib = capi.load_library()
    for name in ("sigreg_aot_describe", "sigreg_aot_load", "sigreg_aot_load_device", "sigreg_aot_bind",
                 "sigreg_aot_set_seed", "sigreg_aot_run", "sigreg_aot_destroy", "sigreg_aot_last_error"):
        assert hasattr(lib, name)


def test_load_reports_errors_without_crashing(tmp_path):
    lib = capi.load_library()
    h = ctypes.c_void_p()
    assert lib.sigreg_aot_load(str(tmp_path / "missing").encode(), ctypes.byref(h)) != 0
    assert b"manifest" in lib.sigreg_aot_load_error()
    assert lib.sigreg_aot_load_device(str(tmp_path / "missing").encode(), 1, ctypes.byref(h)) != 0
    assert b"manifest" in lib.sigreg_aot_load_error()


@pytest.mark.skipif(sc.find_compiler() is None, reason="no sigreg-run")
def test_load_of_a_real_artifact_without_a_gpu(tmp_path, monkeypatch):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    monkeypatch.setenv("SIGREG_CACHE_DIR", str(tmp_path))
    art = sc.compile_artifact(sc.Problem(N=8, D=16, S=8))
    lib = capi.load_library()
    h = ctypes.c_void_p()
    assert lib.sigreg_aot_load(str(art).encode(), ctypes.byref(h)) != 0
    assert lib.sigreg_aot_load_error()  # why: no driver / no device
    with pytest.raises(capi.CapiError, match="no CUDA device"):
        capi.CapiFunction(str(art))
