"""sigreg: Python side of sigreg-mlir.

- :mod:`sigreg.reference`: float64 NumPy reference of SIGReg (DESIGN.md section 1).
- :mod:`sigreg.philox`: bit-exact NumPy projection generator (docs/PROJECTION.md).
- :mod:`sigreg.torch_ref`: PyTorch float64 reference and the LeJEPA-style eager
  implementation (imports torch lazily; optional).
"""

from . import philox, reference
from .reference import gradient, integration_grid, loss, statistics

__all__ = ["philox", "reference", "integration_grid", "statistics", "loss", "gradient"]
__version__ = "0.1.0"
