"""The data model and segview's index conventions.

Conventions (every module follows them):

* Indices are 0-based positions in a series.
* A **change point** is the index of the *first sample of the new segment*, ``0 < cp < n``. Tools that
  report segment ends (ruptures, R's changepoint) are converted at their adapter.
* A **steady-state onset** is ``int | None``: the first steady sample, or ``None`` for "never steady".
  File formats use sentinels (``-1``, blank cells); they are converted in ``segview.core.io`` and never
  reach the core. (CP-SSD's faithful mode reports its published convention, see its module.)
* An empty annotation ("looked, no onset") differs from a missing one (not annotated yet).
* Series values are float64, C-contiguous and read-only, so worker threads share them safely.
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .errors import InputError


def as_values(values: ArrayLike, what: str = "series", *, allow_nonfinite: bool = False
              ) -> NDArray[np.float64]:
    """Return a read-only, C-contiguous float64 copy of a 1-D sequence of numbers.

    Raises:
        InputError: not numeric, not one-dimensional, empty, or holding NaN/inf (the message gives the
            first offending index).
    """
    if isinstance(values, Series):
        return values.values
    try:
        arr = np.array(values, dtype=np.float64, copy=True)
    except (TypeError, ValueError) as err:
        raise InputError(what, f"values must be numbers ({err})") from None
    if arr.ndim != 1:
        raise InputError(what, f"expected a one-dimensional sequence, got shape {arr.shape}")
    if arr.size == 0:
        raise InputError(what, "the series is empty")
    if not allow_nonfinite:
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            raise InputError(what, f"non-finite value {float(arr[bad[0]])!r} at index {int(bad[0])}"
                             + (f" (and {bad.size - 1} more)" if bad.size > 1 else ""))
    arr = np.ascontiguousarray(arr)
    arr.flags.writeable = False
    return arr


@dataclass(frozen=True, eq=False)
class Series:
    """One performance time series.

    Attributes:
        values: read-only float64 measurements.
        x: optional read-only x values (processor counts, problem sizes); default is the sample index.
        id: name used in tables and files (e.g. ``s0001`` or ``bench/fork1``).
        metadata: free-form information from the loader (source file, fork, units...).
    """

    values: NDArray[np.float64]
    x: NDArray[np.float64] | None = None
    id: str = "series"
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __init__(self, values: ArrayLike, x: ArrayLike | None = None, id: str = "series",
                 metadata: Mapping[str, Any] | None = None) -> None:
        vals = as_values(values, id)
        object.__setattr__(self, "values", vals)
        if x is not None:
            xs = as_values(x, f"{id} (x values)")
            if xs.shape != vals.shape:
                raise InputError(id, f"{xs.size} x values for {vals.size} measurements")
            object.__setattr__(self, "x", xs)
        else:
            object.__setattr__(self, "x", None)
        object.__setattr__(self, "id", str(id))
        object.__setattr__(self, "metadata", dict(metadata or {}))

    def __len__(self) -> int:
        return int(self.values.size)

    def __repr__(self) -> str:
        return f"Series(id={self.id!r}, n={len(self)})"

    @property
    def content_hash(self) -> str:
        """SHA-256 of the values (and x values), so labels stay attached to the right data."""
        h = hashlib.sha256(self.values.tobytes())
        if self.x is not None:
            h.update(b"x")
            h.update(self.x.tobytes())
        return h.hexdigest()

    def xs(self) -> NDArray[np.float64]:
        return self.x if self.x is not None else np.arange(len(self), dtype=np.float64)
