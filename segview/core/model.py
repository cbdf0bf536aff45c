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
* A multivariate series (several named dimensions measured at the same instants, e.g. TCPD's
  ``run_log``) is one :class:`Series` whose ``values`` have shape ``(n, d)`` and whose ``dims`` name the
  columns; a univariate series has 1-D ``values`` and ``dims == ()``. Its id is the source's id, so
  annotations keyed by it still match.
"""
from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Mapping, Sequence
from itertools import repeat
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .errors import InputError


def check_finite(arr: NDArray[np.float64], what: str = "series") -> None:
    """Raise InputError naming the first NaN or infinity of ``arr`` and how many more there are."""
    if not np.isfinite(arr).all():
        bad = np.flatnonzero(~np.isfinite(arr))
        if bad.size:
            raise InputError(what, f"non-finite value {float(arr[bad[0]])!r} at index {int(bad[0])}"
                             + (f" (and {bad.size - 1} more)" if bad.size > 1 else ""))


def as_values(values: ArrayLike, what: str = "series", *, allow_nonfinite: bool = False,
              copy: bool = True) -> NDArray[np.float64]:
    """Return a read-only, C-contiguous float64 copy of a 1-D sequence of numbers.

    With ``copy=False`` a float64 C-contiguous array is not copied: the result is a read-only
    *view* of it (the caller's array stays writeable through its own name). For a caller that
    only reads the values while it runs, such as :func:`segview.detect` (issue 31: an 8 MB copy
    per call at 1e6 points).

    Raises:
        InputError: not numeric, not one-dimensional, empty, or holding NaN/inf (the message gives the
            first offending index).
    """
    if isinstance(values, Series):
        if values.dims:
            raise InputError(values.id, needs_one_dimension_message(values))
        return values.values
    try:
        arr = np.array(values, dtype=np.float64, copy=True if copy else None)
        if isinstance(values, np.ndarray) and np.may_share_memory(arr, values):
            arr = arr.view()  # read-only below must not reach the caller's own array
    except (TypeError, ValueError) as err:
        raise InputError(what, f"values must be numbers ({err})") from None
    if arr.ndim != 1:
        raise InputError(what, f"expected a one-dimensional sequence, got shape {arr.shape}"
                               + (" (a multivariate series needs dims=names)" if arr.ndim == 2
                                  else ""))
    if arr.size == 0:
        raise InputError(what, "the series is empty")
    if not allow_nonfinite:
        check_finite(arr, what)
    arr = np.ascontiguousarray(arr)
    arr.flags.writeable = False
    return arr


@dataclass(frozen=True, eq=False, slots=True)
class Series:
    """One performance time series.

    Attributes:
        values: read-only float64 measurements.
        x: optional read-only x values (processor counts, problem sizes); default is the sample index.
        id: name used in tables and files (e.g. ``s0001`` or ``bench/fork1``).
        metadata: free-form information from the loader (source file, fork, units...).
        dims: names of the dimensions of a multivariate series (``values`` of shape ``(n, d)``,
            ``d >= 2``); ``()`` for a univariate one.
    """

    values: NDArray[np.float64]
    x: NDArray[np.float64] | None = None
    id: str = "series"
    metadata: Mapping[str, Any] = field(default_factory=dict)
    dims: tuple[str, ...] = ()

    def __init__(self, values: ArrayLike, x: ArrayLike | None = None, id: str = "series",
                 metadata: Mapping[str, Any] | None = None,
                 dims: "tuple[str, ...] | list[str] | None" = None) -> None:
        vals, names = _values_and_dims(values, id, dims)
        object.__setattr__(self, "values", vals)
        object.__setattr__(self, "dims", names)
        if x is not None:
            xs = as_values(x, f"{id} (x values)")
            if xs.shape[0] != vals.shape[0]:
                raise InputError(id, f"{xs.size} x values for {vals.shape[0]} measurements")
            object.__setattr__(self, "x", xs)
        else:
            object.__setattr__(self, "x", None)
        object.__setattr__(self, "id", str(id))
        object.__setattr__(self, "metadata", dict(metadata or {}))

    @classmethod
    def _checked(cls, values: NDArray[np.float64], id: str, metadata: Mapping[str, Any]
                 ) -> "Series":
        """A univariate series from ``values`` the caller already checked: 1-D, non-empty, finite,
        read-only, C-contiguous float64 (a loader's slice of one validated array). No copy and no
        second pass: a file of a million three-point forks spent most of its load time here in
        ``__init__``'s per-series conversion and checks. ``metadata`` is kept, not copied."""
        obj = object.__new__(cls)
        _set_values(obj, values)
        _set_dims(obj, ())
        _set_x(obj, None)
        _set_id(obj, id)
        _set_metadata(obj, metadata)
        return obj

    @classmethod
    def _checked_many(cls, values: "Sequence[NDArray[np.float64]]", ids: Sequence[str],
                      metadata: "Sequence[Mapping[str, Any]]") -> "list[Series]":
        """:meth:`_checked` for many series at once (equal-length sequences); the slots are
        filled by C-level ``map`` passes, half the time of one call per series."""
        objs = list(map(object.__new__, repeat(cls, len(ids))))
        for setter, column in ((_set_values, values), (_set_id, ids), (_set_metadata, metadata),
                               (_set_x, repeat(None)), (_set_dims, repeat(()))):
            deque(map(setter, objs, column), maxlen=0)
        return objs

    def __len__(self) -> int:
        return int(self.values.shape[0])

    def __repr__(self) -> str:
        extra = f", dims={list(self.dims)}" if self.dims else ""
        return f"Series(id={self.id!r}, n={len(self)}{extra})"

    @property
    def ndim(self) -> int:
        """Number of dimensions (1 for a univariate series)."""
        return len(self.dims) or 1

    @property
    def multivariate(self) -> bool:
        return bool(self.dims)

    def dimension(self, which: int | str) -> "Series":
        """One dimension as a univariate series (id ``<id>/<name>``; the parent id and the
        dimension name are in its metadata). A univariate series returns itself for 0."""
        if not self.dims:
            if which in (0, self.id):
                return self
            raise InputError(self.id, f"a univariate series has no dimension {which!r}")
        if isinstance(which, str):
            if which not in self.dims:
                raise InputError(self.id, f"no dimension {which!r} (dimensions: "
                                          f"{', '.join(self.dims)})")
            k = self.dims.index(which)
        else:
            k = int(which)
            if not 0 <= k < len(self.dims):
                raise InputError(self.id, f"dimension {k} outside 0..{len(self.dims) - 1}")
        name = self.dims[k]
        return Series(self.values[:, k], self.x, f"{self.id}/{name}",
                      {**self.metadata, "parent": self.id, "dimension": name})

    def dimensions(self) -> "list[Series]":
        """Every dimension as a univariate series (``[self]`` for a univariate series)."""
        return [self.dimension(k) for k in range(len(self.dims))] if self.dims else [self]

    @property
    def content_hash(self) -> str:
        """SHA-256 of the values (and x values, and the dimension names of a multivariate series),
        so labels stay attached to the right data."""
        h = hashlib.sha256(self.values.tobytes())
        if self.x is not None:
            h.update(b"x")
            h.update(self.x.tobytes())
        if self.dims:
            h.update(b"dims")
            h.update("\x1f".join(self.dims).encode("utf-8"))
        return h.hexdigest()

    def xs(self) -> NDArray[np.float64]:
        return self.x if self.x is not None else np.arange(len(self), dtype=np.float64)


# slot setters of the frozen Series (what object.__setattr__ does, without its lookup per call);
# read with getattr: type checkers see the fields' types on the class, not their slot descriptors
_set_values = getattr(Series, "values").__set__
_set_dims = getattr(Series, "dims").__set__
_set_x = getattr(Series, "x").__set__
_set_id = getattr(Series, "id").__set__
_set_metadata = getattr(Series, "metadata").__set__


def needs_one_dimension_message(series: Series, method: str | None = None) -> str:
    """The error text for a univariate-only use of a multivariate series."""
    who = f"{method} works on one dimension" if method else "this needs one dimension"
    return (f"{who}, but the series has {series.ndim} ({', '.join(series.dims)}); select one "
            f"(series.dimension(NAME)) or run per dimension (detect_per_dimension / "
            f"--per-dimension)")


def _values_and_dims(values: ArrayLike, what: str, dims: Any
                     ) -> tuple[NDArray[np.float64], tuple[str, ...]]:
    """Values as 1-D (univariate) or ``(n, d)`` (multivariate, ``d >= 2``, names given) plus the
    dimension names. Raises InputError for other shapes, non-finite values
    (naming row and dimension), or names that do not fit.
    """
    if isinstance(values, Series):
        return values.values, values.dims
    try:
        # univariate: as_values makes the one copy; multivariate: this one is the copy
        arr = (np.array if dims else np.asarray)(values, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise InputError(what, f"values must be numbers ({err})") from None
    if not dims:
        return as_values(arr, what), ()  # 2-D values need their dimension names
    if arr.ndim != 2:
        raise InputError(what, f"dimension names {list(dims)} given for values of shape "
                               f"{arr.shape}; a multivariate series has shape (n, d)")
    if arr.shape[1] == 1:
        raise InputError(what, "a multivariate series has at least two dimensions")
    n, d = arr.shape
    if n == 0:
        raise InputError(what, "the series is empty")
    names = tuple(str(v) for v in dims) if dims else tuple(f"V{k + 1}" for k in range(d))
    if len(names) != d:
        raise InputError(what, f"{len(names)} dimension names for {d} columns")
    if len(set(names)) != d:
        raise InputError(what, f"dimension names repeat: {list(names)}")
    bad = np.argwhere(~np.isfinite(arr))
    if bad.size:
        i, k = (int(v) for v in bad[0])
        raise InputError(what, f"non-finite value {float(arr[i, k])!r} at index {i}, dimension "
                               f"{names[k]!r}" + (f" (and {len(bad) - 1} more)" if len(bad) > 1
                                                  else ""))
    arr = np.ascontiguousarray(arr)
    arr.flags.writeable = False
    return arr, names
