"""sigreg: Python side of sigreg-mlir.

- :mod:`sigreg.reference`: float64 NumPy reference of SIGReg (docs/CONTRACT.md section 1).
- :mod:`sigreg.philox`: bit-exact NumPy projection generator (docs/PROJECTION.md).
- :mod:`sigreg.torch_ref`: PyTorch float64 reference and the LeJEPA-style eager
  implementation (imports torch lazily; optional).
- :mod:`sigreg.capi`: describe and run sigreg-aot-v1 artifacts (manifest.json + PTX) on torch
  tensors through the runtime's C ABI (libsigreg_aot.so; torch imported lazily);
  :mod:`sigreg.aot`: its old name, and ``python -m sigreg.aot`` (GPU), which checks artifacts
  against the float64 reference.
- :mod:`sigreg.bench`: the benchmark harness, ``python -m sigreg.bench`` (GPU): every
  variant in one process on the same inputs, checked against the float64 reference.
"""

from . import philox, reference
from .reference import gradient, integration_grid, loss, statistics

__all__ = ["philox", "reference", "integration_grid", "statistics", "loss", "gradient"]
__version__ = "0.1.0"
