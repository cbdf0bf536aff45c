"""Shared checks of the benchmark-harness readers (pyperf, pytest-benchmark, hyperfine, Google
Benchmark, Criterion.rs): numbers with named places, required fields with a hint that a newer
harness version may have renamed them, duplicate benchmark names, and crashed (empty) executions
reported as warnings instead of being dropped silently."""
from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import DataFormatError, SegviewWarning
from .readers import finite_floats


def field(obj: Any, key: str, path: Path, where: str, harness: str, kind: type | tuple[type, ...],
          ) -> Any:
    """``obj[key]`` checked to be of ``kind``; a missing key is named with its place and the hint
    that a newer (or older) harness version may have renamed it."""
    if not isinstance(obj, Mapping):
        raise DataFormatError(str(path), f"expected a JSON object, got {type(obj).__name__}", where)
    if key not in obj:
        keys = ", ".join(sorted(map(str, obj))[:12])
        raise DataFormatError(str(path), f"no {key!r} field (found: {keys}); a {harness} version "
                                         f"that renamed it is not supported yet", where)
    v = obj[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(v, kinds) or (isinstance(v, bool) and bool not in kinds):
        raise DataFormatError(str(path), f"{key!r} is {type(v).__name__}, expected "
                                         f"{_kind_name(kind)}", where)
    return v


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {dict: "an object", list: "a list", str: "a string", int: "an integer",
             float: "a number"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def number(v: Any, path: Path, where: str) -> float:
    """One finite JSON number (not a bool)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise DataFormatError(str(path), f"value {v!r} is not a number", where)
    try:
        f = float(v)
    except OverflowError:
        raise DataFormatError(str(path), "value too large for a number", where) from None
    if not math.isfinite(f):
        raise DataFormatError(str(path), f"value {v!r} is not finite", where)
    return f


def numbers(values: Any, path: Path, where: str) -> NDArray[np.float64]:
    """A list of finite numbers as float64 (vectorised; the slow loop only names a bad value)."""
    if not isinstance(values, list):
        raise DataFormatError(str(path), f"expected a list of numbers, got {type(values).__name__}",
                              where)
    fast = finite_floats(values) if values else np.empty(0)
    if fast is not None:
        return fast
    return np.array([number(v, path, f"{where}, index {i}") for i, v in enumerate(values)],
                    dtype=np.float64)


class Names:
    """Benchmark names met in one file: a repeated name is a named error with both places."""

    def __init__(self, path: Path, harness: str, hint: str = "") -> None:
        self.path, self.harness, self.hint = path, harness, hint
        self.seen: dict[str, str] = {}

    def add(self, name: str, where: str) -> None:
        if name in self.seen:
            raise DataFormatError(str(self.path), f"benchmark name {name!r} appears twice (first at "
                                                  f"{self.seen[name]}); segview cannot tell which "
                                                  f"measurements belong together{self.hint}", where)
        self.seen[name] = where


def crashed(path: Path, benchmark: str, where: str, what: str) -> str:
    """Report a crashed (empty) execution as a :class:`SegviewWarning` and return its text, for the
    ``load_warnings`` metadata of the benchmark's first execution."""
    msg = f"{path} ({where}): benchmark {benchmark!r}: {what}"
    warnings.warn(msg, SegviewWarning, stacklevel=3)
    return msg


def json_meta(d: Any) -> dict[str, Any]:
    """The entries of ``d`` that are plain JSON values (str, number, bool, None, lists and
    objects of them), for series metadata."""
    if not isinstance(d, Mapping):
        return {}
    return {str(k): v for k, v in d.items() if _plain(v)}


def _plain(v: Any, depth: int = 0) -> bool:
    if v is None or isinstance(v, (str, bool, int)):
        return True
    if isinstance(v, float):
        return math.isfinite(v)
    if depth > 8:
        return False
    if isinstance(v, list):
        return all(_plain(e, depth + 1) for e in v)
    if isinstance(v, Mapping):
        return all(isinstance(k, str) and _plain(e, depth + 1) for k, e in v.items())
    return False


def params_suffix(params: Mapping[str, Any] | None) -> str:
    """``[k=v,...]`` for a benchmark name (sorted keys), '' without parameters."""
    if not params:
        return ""
    return "[" + ",".join(f"{k}={v}" for k, v in sorted(params.items())) + "]"
