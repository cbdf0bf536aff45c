"""The detections table written by ``segview detect`` and the explorer's CSV export.

Columns ``series_id,method,steady_index,change_points,runtime_ms,benchmark,execution,strengths,
strength_label``:
``steady_index`` is -1 for "never steady" (blank for change-point detectors) and ``change_points`` is
``;``-separated; ``benchmark`` and ``execution`` name the benchmark the series belongs to and its
process execution (:mod:`segview.core.benchmark`; a series without benchmark metadata is its own
benchmark, execution 0). ``strengths`` is ``;``-separated like ``change_points``, one number per change
point (6 significant digits), blank when the method gives none; ``strength_label`` says what they
are (``docs/strengths.md``). These columns come last, so readers that go by position keep working; segview's
own readers go by header. Both front ends write through here so their files compare line by line.

Change-point index conventions (:data:`CP_INDEX`): ``segview`` (default) writes the 0-based index of
the first sample of each new segment (R ``cpts()``, ruptures). ``tcpdbench`` writes what TCPDBench
reports and scores for its R methods: the 0-based index of the *last sample before* the change
(``cp - 1``), keeping only ``1 <= cp - 1 < n - 1`` (its ``clean_cps``: 0 and n - 1 are dropped,
duplicates removed, sorted). :func:`to_tcpdbench` and :func:`from_tcpdbench` convert. One wrapper
report differently: TCPDBench's ``bocpd`` (R ``ocp``) writes ``maxCPs - 1`` and its ``ecp`` and
``kcpa`` (R ``ecp``) write ``estimates - 1``, the 0-based *first* sample of each new segment, i.e.
segview's own number; :data:`TCPDBENCH_OFFSET` lists such methods
and ``method=`` selects the rule (the same cleaning applies).
"""
from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from typing import Any
from .. import safecsv

CSV_COLUMNS = ("series_id", "method", "steady_index", "change_points", "runtime_ms", "benchmark",
               "execution", "strengths", "strength_label")
#: Names of the change-point index conventions (module docstring).
CP_INDEX = ("segview", "tcpdbench")


#: ``segview change point - TCPDBench location`` for methods whose TCPDBench wrapper does not report
#: the last sample before the change (all others: 1).
TCPDBENCH_OFFSET: dict[str, int] = {"bocpd": 0, "ecp": 0, "kcpa": 0}


def to_tcpdbench(change_points: Iterable[int], n_obs: int, method: str | None = None) -> list[int]:
    """segview change points -> TCPDBench's reported locations (``cp - 1``, ``1 <= . < n - 1``).

    ``method``: the detector, for the wrappers of :data:`TCPDBENCH_OFFSET` (``bocpd``: ``cp``)."""
    off = TCPDBENCH_OFFSET.get(str(method).lower(), 1) if method is not None else 1
    return sorted({int(c) - off for c in change_points if 1 <= int(c) - off < n_obs - 1})


def from_tcpdbench(locations: Iterable[int]) -> list[int]:
    """TCPDBench locations (last sample before a change) -> segview change points (``loc + 1``)."""
    return sorted({int(c) + 1 for c in locations})


def convert_cps(change_points: Iterable[int], n_obs: int, cp_index: str,
                method: str | None = None) -> list[int]:
    """Change points written in convention ``cp_index`` (one of :data:`CP_INDEX`) for detector
    ``method`` (see :func:`to_tcpdbench`)."""
    if cp_index == "segview":
        return [int(c) for c in change_points]
    if cp_index == "tcpdbench":
        return to_tcpdbench(change_points, n_obs, method)
    raise ValueError(f"unknown change-point index convention {cp_index!r}")


def convert_with_strengths(change_points: Sequence[int], strengths: Sequence[float] | None,
                           n_obs: int, cp_index: str, method: str | None = None
                           ) -> tuple[list[int], list[float] | None]:
    """:func:`convert_cps` keeping each change point's strength beside it (a change point that the
    convention drops loses its strength; of two that become one location the first is kept)."""
    cps = convert_cps(change_points, n_obs, cp_index, method)
    if strengths is None:
        return cps, None
    if cp_index == "segview":
        return cps, [float(v) for v in strengths]
    off = TCPDBENCH_OFFSET.get(str(method).lower(), 1) if method is not None else 1
    first: dict[int, float] = {}
    for c, v in zip(change_points, strengths):
        first.setdefault(int(c) - off, float(v))
    return cps, [first[c] for c in cps]


def format_strengths(strengths: Iterable[float] | None) -> str:
    """The ``strengths`` cell: ``;``-separated, 6 significant digits; blank for None."""
    if strengths is None:
        return ""
    return ";".join(f"{float(v):.6g}" for v in strengths)


def detection_row(series_id: str, method: str, produces: str, steady_start: int | None,
                  change_points: Sequence[int] | Iterable[int], runtime_ms: float,
                  benchmark: str | None = None, execution: int = 0,
                  strengths: Iterable[float] | None = None, strength_label: str = ""
                  ) -> dict[str, Any]:
    """One table row; the ``None`` onset becomes -1 (onset detectors) or blank (others).
    ``benchmark`` defaults to the series id (a series without benchmark metadata); see
    :func:`benchmark_columns` for a series' own. ``strengths``: one per change point or None."""
    if steady_start is None:
        steady: int | str = -1 if produces == "onset" else ""
    else:
        steady = int(steady_start)
    return {"series_id": series_id, "method": method, "steady_index": steady,
            "change_points": ";".join(str(int(c)) for c in change_points),
            "runtime_ms": round(float(runtime_ms), 3),
            "benchmark": series_id if benchmark is None else benchmark,
            "execution": int(execution), "strengths": format_strengths(strengths),
            "strength_label": strength_label if strengths is not None else ""}


def benchmark_columns(series: Any) -> dict[str, Any]:
    """``benchmark`` and ``execution`` of a :class:`~segview.core.model.Series` as
    :func:`detection_row` keywords."""
    from ..benchmark import benchmark_name, execution_index

    return {"benchmark": benchmark_name(series), "execution": execution_index(series)}


def format_csv(rows: Iterable[dict[str, Any]]) -> str:
    """The rows as CSV text with a header."""
    buf = io.StringIO()
    writer = safecsv.dict_writer(buf, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()
