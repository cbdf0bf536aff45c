"""What the ports of R ``ecp`` (:mod:`.ecp`, :mod:`.kcpa`) share: the input as R's matrix, the
parameters that mean the same in both, and R's random stream, loaded on first use.

Kept light like :mod:`._rkinds`: listing the methods imports this module, and must not load numba
(``tests/core/test_startup.py``), so :mod:`._rrng` (compiled) is a lazy module here.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ..lazy import lazy_module
from ..params import ParamSpec, Params
from ._rkinds import SAMPLE_KINDS
from ._scale import SCALE_MODES, scale_values

if TYPE_CHECKING:
    from . import _rrng as rrng
else:  # listing detectors imports no numba
    rrng = lazy_module("._rrng", __package__)

__all__ = ["as_matrix", "rrng", "sample_kind_param", "scale_param", "scaled_input"]


def as_matrix(values: NDArray[np.float64], mode: str) -> NDArray[np.float64]:
    """``values`` (n,) or (n, d) as an (n, d) matrix, each column transformed by ``scale``."""
    y = np.asarray(values, dtype=np.float64)
    if y.ndim == 1:
        y = y[:, None]
    return np.column_stack([scale_values(y[:, q], mode)[0] for q in range(y.shape[1])])


def scaled_input(values: NDArray[np.float64], params: Params) -> tuple[NDArray[np.float64],
                                                                       tuple[str, ...]]:
    """The run's matrix (``params["scale"]`` applied) and the result note that says so."""
    X = as_matrix(values, params["scale"])
    notes: tuple[str, ...] = ()
    if params["scale"] != "none":
        notes = (f"scale={params['scale']}: each dimension standardised before detection",)
    return X, notes


def scale_param(seen_by: str) -> ParamSpec:
    """``scale``: R's ``scale()`` by default, as TCPDBench; ``seen_by``: "the kernel sees"."""
    return ParamSpec("scale", "str", "zscore", choices=SCALE_MODES,
                     help=f"Units {seen_by}: zscore (R's scale(), as TCPDBench), robust or "
                          "none.")


def sample_kind_param() -> ParamSpec:
    """``sample_kind``: R's ``sample.kind`` for the emulated ``sample()``."""
    return ParamSpec("sample_kind", "str", "rejection", choices=SAMPLE_KINDS,
                     help="R's sample.kind: rejection (R >= 3.6) or rounding (older R).")
