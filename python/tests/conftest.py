"""Make the package importable from a plain checkout (no `pip install -e python` needed)."""

import sys
from pathlib import Path

_PKG_ROOT = str(Path(__file__).resolve().parents[1])
if _PKG_ROOT not in sys.path:
    sys.path.insert(0, _PKG_ROOT)
