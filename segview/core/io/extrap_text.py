"""Extra-P text experiments (``PARAMETER`` / ``POINTS`` / ``REGION`` / ``METRIC`` / ``DATA``).

Format (spec ``docs/algorithms/nrss.md`` §7, after Extra-P 4.2.5's text reader): one keyword per line,
blank lines and ``#`` comments skipped, runs of whitespace count as one.

* ``PARAMETER n1 [n2 ...]`` appends parameter names (1-4 in total).
* ``POINTS ...`` appends coordinates: ``(1) (2)``, ``( 1 )( 2 )``, ``( 10 2 )`` per point for several
  parameters, or bare ``1 2 3`` for one parameter.
* ``REGION name`` starts a region, ``METRIC name`` selects a metric; both restart the point counter.
* ``DATA v1 v2 ...`` holds the repetitions of the next point of the current region and metric.

Each (region, metric) becomes one :class:`Series`: values = mean (default) or median of the
repetitions per point, ``x`` = the points (single parameter; with several parameters ``x`` is None
and ``metadata["coordinates"]`` holds the tuples). ``metadata`` also keeps the repetitions, the
other aggregate, the region, metric and parameter names.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np

from ..errors import DataFormatError
from ..model import Series
from .readers import read_text

KEYWORDS = ("PARAMETER", "POINTS", "REGION", "METRIC", "DATA")
MAX_PARAMETERS = 4
_GROUP = re.compile(r"\(([^()]*)\)")


def sniff(head: str) -> bool:
    """True when the first meaningful line starts with an Extra-P keyword."""
    for line in head.splitlines():
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        return text.split(None, 1)[0] in KEYWORDS
    return False


def _floats(tokens: list[str], path: Path, where: str, what: str) -> list[float]:
    out = []
    for tok in tokens:
        try:
            v = float(tok)
        except ValueError:
            raise DataFormatError(str(path), f"{what} {tok!r} is not a number", where) from None
        if not math.isfinite(v):
            raise DataFormatError(str(path), f"{what} {tok!r} is not finite", where)
        out.append(v)
    return out


def _points(rest: str, nparams: int, path: Path, where: str) -> list[tuple[float, ...]]:
    if "(" in rest or ")" in rest:
        groups = _GROUP.findall(rest)
        leftover = _GROUP.sub(" ", rest).strip()
        if leftover or not groups:
            raise DataFormatError(str(path), f"cannot read the points {rest!r}", where)
        pts = []
        for g in groups:
            coord = _floats(g.split(), path, where, "coordinate")
            if len(coord) != nparams:
                raise DataFormatError(str(path), f"point ({g.strip()}) has {len(coord)} "
                                                 f"coordinate(s) for {nparams} parameter(s)", where)
            pts.append(tuple(coord))
        return pts
    if nparams != 1:
        raise DataFormatError(str(path), "points without parentheses need exactly one parameter",
                              where)
    values = _floats(rest.split(), path, where, "coordinate")
    if not values:
        raise DataFormatError(str(path), "POINTS without coordinates", where)
    return [(v,) for v in values]


def read(path: Path, measure: str = "mean") -> list[Series]:
    """Read an Extra-P text file; one Series per (region, metric).

    Args:
        path: the file.
        measure: ``"mean"`` (Extra-P's default) or ``"median"`` of the repetitions.

    Raises:
        DataFormatError: naming the file and the line of the problem.
    """
    path = Path(path)
    text = read_text(path)
    params: list[str] = []
    points: list[tuple[float, ...]] = []
    data: dict[tuple[str, str], list[list[float]]] = {}
    region: str | None = None
    metric = ""
    counter = 0
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"line {lineno}"
        parts = line.split(None, 1)
        key, rest = parts[0], (parts[1].strip() if len(parts) > 1 else "")
        if key == "PARAMETER":
            names = rest.split()
            if not names:
                raise DataFormatError(str(path), "PARAMETER without a name", where)
            params.extend(names)
            if len(params) > MAX_PARAMETERS:
                raise DataFormatError(str(path), f"{len(params)} parameters; at most "
                                                 f"{MAX_PARAMETERS} are supported", where)
        elif key == "POINTS":
            if not params:
                raise DataFormatError(str(path), "POINTS before any PARAMETER", where)
            points.extend(_points(rest, len(params), path, where))
        elif key == "REGION":
            if not rest:
                raise DataFormatError(str(path), "REGION without a name", where)
            region, counter = " ".join(rest.split()), 0
        elif key == "METRIC":
            metric, counter = " ".join(rest.split()), 0
        elif key == "DATA":
            if region is None:
                raise DataFormatError(str(path), "DATA before any REGION", where)
            values = _floats(rest.split(), path, where, "value")
            if not values:
                raise DataFormatError(str(path), "DATA without values", where)
            reps = data.setdefault((region, metric), [])
            if counter != len(reps):
                raise DataFormatError(str(path), f"region {region!r} metric {metric!r} gets a "
                                                 "second block of DATA lines", where)
            if counter >= len(points):
                raise DataFormatError(str(path), f"more DATA lines than the {len(points)} points "
                                                 f"(region {region!r}, metric {metric!r})", where)
            reps.append(values)
            counter += 1
        else:
            raise DataFormatError(str(path), f"unknown keyword {key!r} (expected one of "
                                             f"{', '.join(KEYWORDS)})", where)
    if not params:
        raise DataFormatError(str(path), "no PARAMETER line")
    if not points:
        raise DataFormatError(str(path), "no POINTS line")
    if not data:
        raise DataFormatError(str(path), "no DATA lines")
    out = []
    for (reg, met), reps in data.items():
        if len(reps) != len(points):
            raise DataFormatError(str(path), f"region {reg!r} metric {met!r} has {len(reps)} DATA "
                                             f"lines for {len(points)} points")
        means = np.array([float(np.mean(r)) for r in reps])
        medians = np.array([float(np.median(r)) for r in reps])
        measured = medians if measure == "median" else means
        x = np.array([p[0] for p in points]) if len(params) == 1 else None
        sid = reg if not met else f"{reg}/{met}"
        meta = {"source": str(path), "format": "extrap", "region": reg, "metric": met,
                "parameters": tuple(params), "coordinates": list(points),
                "repetitions": [list(r) for r in reps], "measure": measure,
                "mean": means.tolist(), "median": medians.tolist()}
        out.append(Series(measured, x=x, id=sid, metadata=meta))
    return out
