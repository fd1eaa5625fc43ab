"""sigreg: Python side of sigreg-mlir.

- :mod:`sigreg.reference`: float64 NumPy reference of SIGReg (docs/CONTRACT.md section 1).
- :mod:`sigreg.philox`: bit-exact NumPy projection generator (docs/PROJECTION.md).
- :mod:`sigreg.torch_ref`: PyTorch float64 reference and the LeJEPA-style eager
  implementation (imports torch lazily; optional).
- :mod:`sigreg.aot`: run a sigreg-aot-v1 artifact (manifest.json + PTX) on torch tensors
  through cuda-python's driver API (torch and cuda-python imported lazily).
- :mod:`sigreg.bench`: the benchmark harness, ``python -m sigreg.bench`` (GPU): every
  variant in one process on the same inputs, checked against the float64 reference.
"""

from . import philox, reference
from .reference import gradient, integration_grid, loss, statistics

__all__ = ["philox", "reference", "integration_grid", "statistics", "loss", "gradient"]
__version__ = "0.1.0"
