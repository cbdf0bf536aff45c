"""Agreement statistics of a judge panel: Fleiss' kappa on steadiness, onset spread, judge bias.

Fleiss' kappa (Fleiss 1971) for N subjects, n ratings each, categories j:
``P_i = (sum_j n_ij^2 - n) / (n (n - 1))``, ``P_bar = mean P_i``, ``p_j = sum_i n_ij / (N n)``,
``P_e = sum_j p_j^2``, ``kappa = (P_bar - P_e) / (1 - P_e)``. Only series rated by the full panel
(the most common number of raters) enter, as the statistic requires a constant n.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .aggregate import GroundTruth


def fleiss_kappa(counts: Sequence[Sequence[int]]) -> float:
    """Fleiss' kappa of an N x categories table of rating counts (equal row sums >= 2).

    Returns ``nan`` when the expected agreement is 1 (every rating in one category).

    Raises:
        InputError: empty table, unequal or too small row sums, negative counts.
    """
    table = np.asarray(counts, dtype=np.float64)
    if table.ndim != 2 or table.shape[0] == 0:
        raise InputError("counts", "expected a non-empty subjects x categories table")
    if (table < 0).any():
        raise InputError("counts", "negative count")
    n_per = table.sum(axis=1)
    n = n_per[0]
    if n < 2 or not np.all(n_per == n):
        raise InputError("counts", "every subject needs the same number (>= 2) of ratings")
    big_n = table.shape[0]
    p_i = (np.sum(table * table, axis=1) - n) / (n * (n - 1))
    p_bar = float(p_i.mean())
    p_j = table.sum(axis=0) / (big_n * n)
    p_e = float(np.sum(p_j * p_j))
    if p_e >= 1.0:
        return float("nan")
    return (p_bar - p_e) / (1.0 - p_e)


def steadiness_kappa(votes: Mapping[str, Mapping[str, bool]]) -> tuple[float, int, int]:
    """Fleiss' kappa of steady/unsteady votes ``{series: {judge: steady}}``.

    Returns:
        (kappa, number of series used, raters per series).
    """
    sizes = Counter(len(v) for v in votes.values() if len(v) >= 2)
    if not sizes:
        return float("nan"), 0, 0
    n = max(sizes, key=lambda s: (sizes[s], s))
    rows = [[sum(1 for x in v.values() if x), sum(1 for x in v.values() if not x)]
            for v in votes.values() if len(v) == n]
    return fleiss_kappa(rows), len(rows), n


@dataclass(frozen=True)
class JudgeBias:
    """One judge against the consensus.

    Attributes:
        judge: name.
        n_onsets: steady series where both the judge and the consensus give an onset.
        mean_offset, median_offset: judge onset minus reference onset (samples; > 0 = later).
        mean_abs_offset: mean absolute difference.
        binary_agreement: share of series where the judge's steady vote equals the consensus.
        n_binary: series counted for it.
    """

    judge: str
    n_onsets: int
    mean_offset: float
    median_offset: float
    mean_abs_offset: float
    binary_agreement: float
    n_binary: int


def onset_spread(results: Sequence[GroundTruth]) -> dict[str, float]:
    """Spread of the judges' onsets per steady series: range and MAD around the reference,
    summarised over series (``median_range``, ``mean_range``, ``median_mad``, ``n_series``)."""
    ranges, mads = [], []
    for gt in results:
        if gt.steady and gt.reference_index is not None and len(gt.onsets) >= 2:
            vals = np.array(list(gt.onsets.values()), dtype=np.float64)
            ranges.append(float(vals.max() - vals.min()))
            mads.append(float(np.median(np.abs(vals - gt.reference_index))))
    if not ranges:
        return {"n_series": 0, "median_range": float("nan"), "mean_range": float("nan"),
                "median_mad": float("nan")}
    return {"n_series": len(ranges), "median_range": float(np.median(ranges)),
            "mean_range": float(np.mean(ranges)), "median_mad": float(np.median(mads))}


def judge_bias(results: Sequence[GroundTruth],
               votes: Mapping[str, Mapping[str, bool]]) -> list[JudgeBias]:
    """Each judge's onset offset and steadiness agreement against the aggregated labels."""
    judges = list(dict.fromkeys(j for v in votes.values() for j in v))
    by_id = {gt.series_id: gt for gt in results}
    out = []
    for judge in judges:
        offs, agree, n_bin = [], 0, 0
        for sid, v in votes.items():
            gt = by_id.get(sid)
            if gt is None or judge not in v:
                continue
            if gt.steady is not None:
                n_bin += 1
                agree += int(v[judge] == gt.steady)
            if gt.steady and gt.reference_index is not None and judge in gt.onsets:
                offs.append(gt.onsets[judge] - gt.reference_index)
        arr = np.array(offs, dtype=np.float64)
        nan = float("nan")
        out.append(JudgeBias(judge, len(offs), float(arr.mean()) if offs else nan,
                             float(np.median(arr)) if offs else nan,
                             float(np.abs(arr).mean()) if offs else nan,
                             agree / n_bin if n_bin else nan, n_bin))
    return out


def summary(results: Sequence[GroundTruth], votes: Mapping[str, Mapping[str, bool]]
            ) -> dict[str, object]:
    """Kappa, onset spread, per-judge bias and the counts of clustered / scattered / disputed."""
    kappa, n_used, raters = steadiness_kappa(votes)
    methods = Counter(gt.method for gt in results)
    return {"fleiss_kappa": kappa, "kappa_series": n_used, "kappa_raters": raters,
            "onset_spread": onset_spread(results), "methods": dict(methods),
            "disputed": sum(1 for gt in results if gt.disputed),
            "judge_bias": [b.__dict__ for b in judge_bias(results, votes)]}


@dataclass(frozen=True)
class Disagreement:
    """A series for the review view: why the judges disagree, most severe first."""

    series_id: str
    severity: int
    reasons: tuple[str, ...]
    result: GroundTruth


def disagreements(results: Sequence[GroundTruth]) -> list[Disagreement]:
    """Series whose judges disagree, for review and adjudication: tied votes (severity 3),
    scattered onsets (2), split votes or onsets outside the cluster (1). Adjudicated series are
    listed too (severity 0) so that a reviewer sees the decisions taken."""
    out = []
    for gt in results:
        reasons, severity = [], 0
        if gt.disputed:
            reasons.append(f"tied vote: {gt.votes_steady} of {gt.votes_total} say steady")
            severity = 3
        elif 0 < gt.votes_steady < gt.votes_total:
            reasons.append(f"split vote: {gt.votes_steady} of {gt.votes_total} say steady")
            severity = 1
        if gt.onsets and gt.clustered is False and len(gt.onsets) > 1:
            reasons.append(f"onsets scattered ({min(gt.onsets.values())}.."
                           f"{max(gt.onsets.values())})")
            severity = max(severity, 2)
        elif gt.clustered and gt.cluster_size < len(gt.onsets):
            outside = [j for j in gt.onsets if j not in gt.agreeing_judges]
            reasons.append(f"{len(outside)} onset(s) outside the cluster: {', '.join(outside)}")
            severity = max(severity, 1)
        if gt.method == "adjudicated":
            reasons.append("adjudicated")
            severity = 0
        if reasons:
            out.append(Disagreement(gt.series_id, severity, tuple(reasons), gt))
    out.sort(key=lambda d: -d.severity)
    return out
