"""Onset metrics of the KB-KSSD paper's RQ1 (``docs/algorithms/evaluation.md`` §1-2).

Inputs are plain mappings keyed by series id:

* truth: :class:`TruthRow` (``steady``, ``reference`` onset for steady series, ``clustered`` flag);
* predictions: ``{method: {series_id: onset | None}}`` with ``None`` meaning "never steady" (the
  ``-1`` sentinel of the files is converted when reading them, see :mod:`.tables`).

"Positive" means steady. Per series the raw error is ``e = g - p`` (``e > 0``: onset detected too
early). Means and standard deviations are population values (``ddof = 0``, as ``scipy.stats.norm.fit``)
and the 95 % range is ``mean ± 2·std`` of the fitted normal, as in the paper.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from ..errors import InputError

Onsets = Mapping[str, "int | None"]
ScoreMode = Literal["joint", "own"]


@dataclass(frozen=True)
class TruthRow:
    """Ground truth of one series: steady flag, reference onset (steady only), clustered flag."""

    series_id: str
    steady: bool
    reference: int | None = None
    clustered: bool | None = None


@dataclass(frozen=True)
class BinaryCounts:
    """Steady/unsteady confusion counts of one method (positive = steady)."""

    agreement: int
    true_positive: int
    false_positive: int
    false_negative: int
    true_negative: int
    false_negative_clustered: int
    false_negative_scattered: int
    says_unsteady: int
    n: int


@dataclass(frozen=True)
class ErrorSummary:
    """Onset-error statistics of one method over a set of scored series."""

    n: int
    n_clustered: int
    total_abs_error: int
    clustered_abs_error: int
    scattered_abs_error: int
    mean_raw_error: float
    std_raw_error: float
    median_raw_error: float
    mean_abs_error: float
    std_abs_error: float
    median_abs_error: float
    range95_raw: tuple[float, float]
    range95_abs: tuple[float, float]
    series_ids: tuple[str, ...] = field(default=(), repr=False)
    errors: NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, np.int64), repr=False)


def check_inputs(truth: Mapping[str, TruthRow], predictions: Mapping[str, Onsets]) -> None:
    """Shared input check of every metric: non-empty truth, steady rows with an onset, and every
    method predicting every truth series.

    Raises:
        InputError: naming the method and series at fault.
    """
    if not truth:
        raise InputError("truth", "no series in the ground truth")
    for sid, row in truth.items():
        if row.steady and row.reference is None:
            raise InputError("truth", f"series {sid} is steady but has no reference index")
        if row.reference is not None and row.reference < 0:
            raise InputError("truth", f"series {sid} has a negative reference index")
    for method, onsets in predictions.items():
        missing = [sid for sid in truth if sid not in onsets]
        if missing:
            more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
            raise InputError(f"predictions of {method}", f"no prediction for series {missing[0]}{more}")


def binary_counts(truth: Mapping[str, TruthRow], onsets: Onsets) -> BinaryCounts:
    """Agreement and confusion counts of one method over all truth series (evaluation.md §1)."""
    check_inputs(truth, {"method": onsets})
    tp = fp = fn = tn = fn_c = fn_s = 0
    for sid, row in truth.items():
        says = onsets[sid] is not None
        if row.steady and says:
            tp += 1
        elif row.steady:
            fn += 1
            if row.clustered:
                fn_c += 1
            else:
                fn_s += 1
        elif says:
            fp += 1
        else:
            tn += 1
    return BinaryCounts(agreement=tp + tn, true_positive=tp, false_positive=fp, false_negative=fn,
                        true_negative=tn, false_negative_clustered=fn_c,
                        false_negative_scattered=fn_s, says_unsteady=fn + tn, n=len(truth))


def total_agreements(truth: Mapping[str, TruthRow], predictions: Mapping[str, Onsets]) -> int:
    """Series where the truth and every method give the same steady/unsteady label."""
    check_inputs(truth, predictions)
    return sum(all((p[sid] is not None) == row.steady for p in predictions.values())
               for sid, row in truth.items())


def method_agreements(truth: Mapping[str, TruthRow], predictions: Mapping[str, Onsets]) -> int:
    """Series where all methods agree with each other but not with the truth (all wrong alike)."""
    check_inputs(truth, predictions)
    out = 0
    for sid, row in truth.items():
        labels = {p[sid] is not None for p in predictions.values()}
        if len(labels) == 1 and labels != {row.steady}:
            out += 1
    return out


def scored_series(truth: Mapping[str, TruthRow], predictions: Mapping[str, Onsets],
                  method: str | None = None, mode: ScoreMode = "joint") -> list[str]:
    """Series whose onset errors are scored, in truth order.

    ``mode="joint"`` (the paper): truth steady and every method steady. ``mode="own"``: truth steady
    and ``method`` steady.
    """
    check_inputs(truth, predictions)
    if mode == "own":
        if method is None or method not in predictions:
            raise InputError("method", f"{method!r} is not among the predictions")
        chosen = [predictions[method]]
    elif mode == "joint":
        chosen = list(predictions.values())
    else:
        raise InputError("mode", f"{mode!r} is not 'joint' or 'own'")
    return [sid for sid, row in truth.items()
            if row.steady and all(p[sid] is not None for p in chosen)]


def onset_errors(truth: Mapping[str, TruthRow], onsets: Onsets,
                 series_ids: Sequence[str]) -> NDArray[np.int64]:
    """Raw errors ``g - p`` over ``series_ids`` (all must be truth-steady and method-steady)."""
    out = np.empty(len(series_ids), dtype=np.int64)
    for i, sid in enumerate(series_ids):
        g, p = truth[sid].reference, onsets.get(sid)
        if g is None or p is None:
            raise InputError("scored series", f"{sid} lacks a truth or predicted onset")
        out[i] = g - p
    return out


def _range95(values: NDArray[np.float64]) -> tuple[float, float]:
    mu, sd = float(values.mean()), float(values.std())
    return (mu - 2 * sd, mu + 2 * sd)


def summarize_errors(truth: Mapping[str, TruthRow], onsets: Onsets,
                     series_ids: Sequence[str]) -> ErrorSummary:
    """Manhattan totals (all, clustered, scattered) and moments of raw and absolute errors."""
    e = onset_errors(truth, onsets, series_ids)
    clustered = np.array([bool(truth[s].clustered) for s in series_ids], dtype=bool)
    a = np.abs(e)
    ef, af = e.astype(np.float64), a.astype(np.float64)
    empty = e.size == 0
    nan = float("nan")
    return ErrorSummary(
        n=int(e.size), n_clustered=int(clustered.sum()),
        total_abs_error=int(a.sum()), clustered_abs_error=int(a[clustered].sum()),
        scattered_abs_error=int(a[~clustered].sum()),
        mean_raw_error=nan if empty else float(ef.mean()),
        std_raw_error=nan if empty else float(ef.std()),
        median_raw_error=nan if empty else float(np.median(ef)),
        mean_abs_error=nan if empty else float(af.mean()),
        std_abs_error=nan if empty else float(af.std()),
        median_abs_error=nan if empty else float(np.median(af)),
        range95_raw=(nan, nan) if empty else _range95(ef),
        range95_abs=(nan, nan) if empty else _range95(af),
        series_ids=tuple(series_ids), errors=e)


def relative_difference(a: float, b: float, base: Literal["first", "second"] = "second") -> float:
    """``(b - a) / base``: with ``base="second"`` this is the paper's ``(CP - KB) / CP``."""
    denom = b if base == "second" else a
    return float("nan") if denom == 0 else (b - a) / denom


def as_dict(obj: Any) -> dict[str, Any]:
    """Dataclass -> JSON-friendly dict (drops the bulky ``series_ids``/``errors`` fields)."""
    out: dict[str, Any] = {}
    for k, v in vars(obj).items():
        if k in ("series_ids", "errors"):
            continue
        out[k] = list(v) if isinstance(v, tuple) else v
    return out
