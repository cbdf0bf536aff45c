"""JMH measurements as JSON.

Two layouts are read:

* the fork list of the steady-state studies: ``[[x0, x1, ...], [x0, ...], ...]``, one list per fork;
  a flat list of numbers is taken as a single fork;
* JMH's own result file (``-rf json``): a list of benchmark objects whose
  ``primaryMetric.rawData`` holds one list per fork.

Series ids: the file stem when the file holds one fork, ``stem/forkK`` (0-based K) when it holds
several; for JMH result files ``benchmark[params]/forkK``.
"""
from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterator, Mapping
from itertools import chain, repeat
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..context import NULL_CONTEXT, RunContext
from ..errors import DataFormatError
from ..model import Series
from .readers import NotSeriesFile, bulk_objects, finite_floats, read_json

#: forks built between two cancellation checks / progress reports
_STEP = 1 << 16


def sniff(head: str) -> bool:
    return head.lstrip().startswith("[")


def _numbers(values: Any, path: Path, where: str) -> Any:
    """The fork as float64 (vectorised); a bad value raises DataFormatError naming its index."""
    if not isinstance(values, list):
        raise DataFormatError(str(path), f"expected a list of numbers, got {type(values).__name__}",
                              where)
    if not values:
        raise DataFormatError(str(path), "the fork holds no measurements", where)
    fast = finite_floats(values)
    if fast is not None:
        return fast
    out = []  # only to name the bad value
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise DataFormatError(str(path), f"value {v!r} is not a number", f"{where}, index {i}")
        try:
            f = float(v)
        except OverflowError:
            raise DataFormatError(str(path), f"value of {len(str(v))} digits is too large for a "
                                             "number", f"{where}, index {i}") from None
        if not math.isfinite(f):
            raise DataFormatError(str(path), f"value {v!r} is not finite", f"{where}, index {i}")
        out.append(f)
    return out


def _bench_name(entry: dict[str, Any]) -> str:
    name = str(entry.get("benchmark", "benchmark"))
    params = entry.get("params")
    if isinstance(params, dict) and params:
        name += "[" + ",".join(f"{k}={v}" for k, v in sorted(params.items())) + "]"
    return name


def _read_jmh_results(data: list[Any], path: Path, ctx: RunContext) -> list[Series]:
    out: list[Series] = []
    source = str(path)
    for b, entry in enumerate(data):
        where = f"benchmark {b}"
        metric = entry.get("primaryMetric") if isinstance(entry, dict) else None
        if not isinstance(metric, dict):
            raise DataFormatError(str(path), "JMH result entry has no primaryMetric object", where)
        raw = metric.get("rawData")
        if not isinstance(raw, list) or not raw:
            raise DataFormatError(str(path), "JMH result entry has no primaryMetric.rawData", where)
        name = _bench_name(entry)
        unit = str(metric.get("scoreUnit", ""))
        extra = (("unit", unit), ("format", "jmh-result"))
        for k, fork in enumerate(raw):
            vals = _numbers(fork, path, f"{where}, fork {k}")
            out.append(Series._checked(_frozen(vals), f"{name}/fork{k}",
                                       ForkMetadata(source, k, extra)))
        if b % 64 == 0:
            ctx.progress(b / len(data), f"benchmark {b + 1} of {len(data)}")
    return out


class ForkMetadata(Mapping[str, Any]):
    """The metadata of one fork, ``{"source", "fork", "format"}`` (plus ``"unit"`` for JMH result
    files), as a read-only mapping of 56 bytes instead of a 200-byte dict per fork: a file of a
    million forks kept 200 MB of identical dicts. It compares equal to the dict it stands for."""

    __slots__ = ("_source", "_fork", "_extra")

    def __init__(self, source: str, fork: int, extra: "tuple[tuple[str, Any], ...]") -> None:
        self._source, self._fork, self._extra = source, fork, extra

    def __getitem__(self, key: str) -> Any:
        if key == "source":
            return self._source
        if key == "fork":
            return self._fork
        for k, v in self._extra:
            if k == key:
                return v
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        yield "source"
        yield "fork"
        for k, _ in self._extra:
            yield k

    def __len__(self) -> int:
        return 2 + len(self._extra)

    def __repr__(self) -> str:
        return repr(dict(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return (ForkMetadata, (self._source, self._fork, self._extra))

    @classmethod
    def many(cls, source: str, forks: "range", extra: "tuple[tuple[str, Any], ...]"
             ) -> "list[ForkMetadata]":
        """One per fork of ``forks``, filled by C-level ``map`` passes (no __init__ call each)."""
        objs = list(map(object.__new__, repeat(cls, len(forks))))
        deque(map(cls._source.__set__, objs, repeat(source)), maxlen=0)  # type: ignore[attr-defined]
        deque(map(cls._fork.__set__, objs, forks), maxlen=0)  # type: ignore[attr-defined]
        deque(map(cls._extra.__set__, objs, repeat(extra)), maxlen=0)  # type: ignore[attr-defined]
        return objs


_JMH = (("format", "jmh"),)


def _frozen(values: Any) -> NDArray[np.float64]:
    arr = np.ascontiguousarray(values, dtype=np.float64)
    arr.flags.writeable = False
    return arr


def _all_forks(data: list[Any]) -> tuple[NDArray[np.float64], NDArray[np.int64]] | None:
    """Every fork's values in one read-only float64 array plus the fork boundaries, when every
    fork is a non-empty list of finite numbers; None otherwise (the fork-by-fork reader then
    names the bad value). One C-level pass per check instead of one numpy call per fork."""
    if not set(map(type, data)) <= {list}:
        return None
    lengths = np.fromiter(map(len, data), dtype=np.int64, count=len(data))
    if not lengths.all():
        return None
    flat = finite_floats(list(chain.from_iterable(data)))
    if flat is None:
        return None
    flat.flags.writeable = False
    bounds = np.zeros(len(data) + 1, dtype=np.int64)
    np.cumsum(lengths, out=bounds[1:])
    return flat, bounds


def read(path: Path, ctx: RunContext | None = None) -> list[Series]:
    """Read a JMH fork list or JMH result file; raises DataFormatError naming file and place.

    ``ctx`` reports progress within the file (the fraction of forks made into series) and is
    checked for cancellation every few thousand forks.
    """
    with bulk_objects():
        return _read(Path(path), ctx or NULL_CONTEXT)


def _read(path: Path, ctx: RunContext) -> list[Series]:
    data = read_json(path)
    if isinstance(data, dict):
        raise NotSeriesFile(str(path), "a JSON object, not a JMH fork list (a list of forks)")
    if not isinstance(data, list) or not data:
        raise DataFormatError(str(path), "expected a non-empty list of forks")
    if all(isinstance(e, dict) for e in data):
        return _read_jmh_results(data, path, ctx)
    if set(map(type, data)) <= {int, float}:
        data = [data]  # a single fork written as a flat list
    ctx.check()
    fast = _all_forks(data)
    if fast is None:  # some fork is not a clean list of numbers: the fork-by-fork reader names it
        forks = [np.asarray(_numbers(fork, path, f"fork {k}"), dtype=np.float64)
                 for k, fork in enumerate(data)]
        fast = _frozen(np.concatenate(forks)), np.cumsum([0] + [f.size for f in forks])
    n = len(data)
    del data  # the parsed JSON (one list per fork) is no longer needed
    flat, bounds = fast
    source = str(path)
    if n == 1:
        return [Series._checked(flat, path.stem, ForkMetadata(source, 0, _JMH))]
    if bool((np.diff(bounds) == bounds[1]).all()):  # forks of one length: rows of a matrix
        views: Any = flat.reshape(n, int(bounds[1]))  # row views are made in C
    else:
        views = list(map(flat.__getitem__, map(slice, bounds[:-1].tolist(), bounds[1:].tolist())))
    prefix = f"{path.stem}/fork"
    out: list[Series] = []
    for lo in range(0, n, _STEP):
        ctx.progress(lo / n, f"fork {lo + 1} of {n}")
        forks = range(lo, min(lo + _STEP, n))
        out += Series._checked_many(list(views[lo:forks.stop]),
                                    list(map(prefix.__add__, map(str, forks))),
                                    ForkMetadata.many(source, forks, _JMH))
    return out
