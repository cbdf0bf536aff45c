"""Judgment aggregation: several judges' labels -> one ground-truth label per series (JAGT).

Implements ``docs/algorithms/jagt.md``:

* ``rule="reference"`` (§3): the KB-KSSD study's own code. Five judges in a fixed order, DBSCAN
  (``eps=50``, ``min_samples=3``) over their onsets; scattered -> median of all five; 3 or 5
  clustered -> middle clustered index; 4 clustered -> the clustered judge that comes *third in judge
  order*. Reproduces ``jagt_index`` / ``jagt_clustered`` of ``labels.csv``.
* ``rule="general"`` (§4, default): any number K of judges. Strict-majority vote on steadiness
  (exact ties are ``disputed``), DBSCAN with ``min_samples = floor(K'/2) + 1`` over the K' onsets
  present (sorted ascending, ties by judge order), the largest cluster (size ties -> later upper
  median), reference = upper median of its members; no cluster -> upper median of all onsets.

Onsets are 0-based sample indices (``int``); an unsteady series has ``reference_index=None``.
An adjudicator's decision, when given, is applied on top and recorded (``method="adjudicated"``);
the judges' own labels are never changed.
"""
from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InputError, ParameterError

log = logging.getLogger(__name__)

RULES = ("reference", "general")
TIE_POLICIES = ("disputed", "unsteady", "steady")
REFERENCE_K = 5


@dataclass(frozen=True)
class Vote:
    """One judge's label for one series.

    Attributes:
        judge: judge name.
        steady: True / False; None = the judge gave an onset only (counts as steady).
        index: onset (first steady sample), or None.
    """

    judge: str
    steady: bool | None
    index: int | None = None


@dataclass(frozen=True)
class Adjudication:
    """An adjudicator's final decision on one series (stored beside the judges' labels)."""

    steady: bool
    index: int | None = None
    adjudicator: str = "adjudicator"


@dataclass(frozen=True)
class GroundTruth:
    """Aggregated label of one series.

    Attributes:
        series_id: the series.
        steady: majority decision; None when the vote is an exact tie left ``disputed``.
        reference_index: aggregated onset, None when unsteady (or no onset was given).
        clustered: a strict majority of the onsets chained within ``eps`` (DBSCAN cluster).
        method: ``"cluster"``, ``"scattered"``, ``"single_judge"``, ``"unsteady"``, ``"disputed"``,
            ``"no_onsets"`` or ``"adjudicated"``.
        votes_steady, votes_total: the steadiness vote counts.
        disputed: the vote was an exact tie (even panel).
        agreeing_judges: judges in the chosen cluster (judge order).
        cluster_size: its size (0 when scattered).
        onsets: the judges' onsets used, in judge order.
        rule, eps, min_samples: how it was computed (min_samples actually used).
    """

    series_id: str
    steady: bool | None
    reference_index: int | None
    clustered: bool | None
    method: str
    votes_steady: int
    votes_total: int
    disputed: bool = False
    agreeing_judges: tuple[str, ...] = ()
    cluster_size: int = 0
    onsets: Mapping[str, int] = field(default_factory=dict)
    rule: str = "general"
    eps: float = 50.0
    min_samples: int | None = None
    automatic_steady: bool | None = None
    automatic_index: int | None = None


def dbscan_labels(values: Sequence[float], eps: float, min_samples: int,
                  algorithm: str = "ball_tree") -> np.ndarray:
    """DBSCAN cluster labels (scikit-learn, Euclidean in 1-D; -1 = noise) in input order.

    The study ran ``algorithm="auto"`` (which picks brute force for five points). Every algorithm
    finds the same eps-neighbourhoods for whole-number onsets (the tests check it); the ball tree
    computes ``|a - b|`` directly and avoids the thread-pool start of the brute-force reduction,
    ~3x faster per series on a loaded machine.
    """
    from sklearn.cluster import DBSCAN

    arr = np.asarray(values, dtype=np.float64).reshape(-1, 1)
    return DBSCAN(eps=eps, min_samples=min_samples, algorithm=algorithm).fit(arr).labels_


def upper_median(values: Iterable[int]) -> int:
    """``u[m // 2]`` of the sorted values: the middle one, or the later of the two middle ones."""
    u = sorted(values)
    return int(u[len(u) // 2])


def reference_onset(onsets: Sequence[int], eps: float = 50.0, min_samples: int = 3
                    ) -> tuple[int, bool, list[int]]:
    """The study's code rule (§3) for five onsets in judge order.

    Returns:
        (reference index, clustered, positions of the clustered judges).
    """
    v = [int(x) for x in onsets]
    if len(v) != REFERENCE_K:
        raise InputError("onsets", f"rule 'reference' needs exactly {REFERENCE_K} onsets, "
                                   f"got {len(v)}")
    labels = dbscan_labels(v, eps, min_samples)
    members = [i for i, lab in enumerate(labels) if lab >= 0]
    c = len(members)
    if c == 0:
        return sorted(v)[-3], False, []
    if c == 4:
        return v[sorted(members)[-2]], True, members
    return int(np.median([v[i] for i in members])), True, members


def general_onset(onsets: Sequence[int], eps: float = 50.0, min_samples: int | None = None
                  ) -> tuple[int, bool, list[int], str]:
    """The K-judge rule (§4) for onsets in judge order.

    Returns:
        (reference index, clustered, positions of the agreeing judges, method).
    """
    v = [int(x) for x in onsets]
    k = len(v)
    if k == 0:
        raise InputError("onsets", "no onsets to aggregate")
    if k == 1:
        return v[0], False, [0], "single_judge"
    q = min_samples if min_samples is not None else k // 2 + 1
    order = sorted(range(k), key=lambda i: (v[i], i))  # ascending, ties by judge order
    labels = dbscan_labels([v[i] for i in order], eps, q)
    clusters: dict[int, list[int]] = {}
    for pos, lab in zip(order, labels):
        if lab >= 0:
            clusters.setdefault(int(lab), []).append(pos)
    if not clusters:
        return upper_median(v), False, [], "scattered"
    best = max(clusters.values(), key=lambda m: (len(m), upper_median(v[i] for i in m)))
    return upper_median(v[i] for i in best), True, sorted(best), "cluster"


def _check_settings(rule: str, eps: float, min_samples: int | None, tie: str) -> None:
    if rule not in RULES:
        raise ParameterError("rule", f"must be one of {', '.join(RULES)}, got {rule!r}")
    if not (isinstance(eps, (int, float)) and eps > 0 and np.isfinite(eps)):
        raise ParameterError("eps", f"must be a positive number of samples, got {eps!r}")
    if min_samples is not None and (isinstance(min_samples, bool) or int(min_samples) != min_samples
                                    or min_samples < 1):
        raise ParameterError("min_samples", f"must be a whole number >= 1, got {min_samples!r}")
    if tie not in TIE_POLICIES:
        raise ParameterError("tie", f"must be one of {', '.join(TIE_POLICIES)}, got {tie!r}")


def aggregate_series(series_id: str, votes: Sequence[Vote], *, rule: str = "general",
                     eps: float = 50.0, min_samples: int | None = None, tie: str = "disputed",
                     adjudication: Adjudication | None = None) -> GroundTruth:
    """Aggregate the judges' votes on one series (votes in judge order)."""
    _check_settings(rule, eps, min_samples, tie)
    n_steady = sum(1 for x in votes if x.steady is not False)
    k = len(votes)
    if k == 0:
        raise InputError(series_id, "no judgments")
    base: dict[str, Any] = dict(series_id=series_id, votes_steady=n_steady, votes_total=k,
                                rule=rule, eps=float(eps))
    disputed = 2 * n_steady == k
    if disputed and tie == "disputed":
        steady: bool | None = None
    elif disputed:
        steady = tie == "steady"
    else:
        steady = 2 * n_steady > k
    onsets = {x.judge: int(x.index) for x in votes if x.index is not None}
    gt = _onset_part(series_id, steady, disputed, onsets, base, rule, eps, min_samples)
    if adjudication is None:
        return gt
    return GroundTruth(**{**gt.__dict__, "steady": adjudication.steady,
                          "reference_index": adjudication.index if adjudication.steady else None,
                          "method": "adjudicated", "automatic_steady": gt.steady,
                          "automatic_index": gt.reference_index})


def _onset_part(series_id: str, steady: bool | None, disputed: bool, onsets: dict[str, int],
                base: dict[str, Any], rule: str, eps: float, min_samples: int | None
                ) -> GroundTruth:
    if steady is False:
        return GroundTruth(steady=False, reference_index=None, clustered=None, method="unsteady",
                           disputed=disputed, onsets=onsets, min_samples=min_samples, **base)
    if not onsets:
        return GroundTruth(steady=steady, reference_index=None, clustered=None,
                           method="disputed" if steady is None else "no_onsets",
                           disputed=disputed, min_samples=min_samples, **base)
    names = list(onsets)
    vals = [onsets[j] for j in names]
    if rule == "reference":
        if len(vals) != REFERENCE_K:
            raise InputError(series_id, f"rule 'reference' needs an onset from each of "
                                        f"{REFERENCE_K} judges, got {len(vals)} "
                                        f"({', '.join(names) or 'none'}); use rule 'general'")
        ms = 3 if min_samples is None else int(min_samples)
        ref, clustered, members = reference_onset(vals, eps, ms)
        method = "cluster" if clustered else "scattered"
    else:
        ms = min_samples if min_samples is not None else len(vals) // 2 + 1
        ref, clustered, members, method = general_onset(vals, eps, min_samples)
        if method == "single_judge":
            members = []
    return GroundTruth(steady=steady, reference_index=ref, clustered=clustered,
                       method="disputed" if steady is None else method, disputed=disputed,
                       agreeing_judges=tuple(names[i] for i in sorted(members)),
                       cluster_size=len(members), onsets=onsets, min_samples=ms, **base)


def _rows_from(judgments: Any) -> list[tuple[str, str, bool | None, int | None]]:
    """Normalise accepted inputs into (series_id, judge, steady, index) rows."""
    rows: list[tuple[str, str, bool | None, int | None]] = []
    if hasattr(judgments, "to_dict") and hasattr(judgments, "columns"):  # pandas DataFrame
        judgments = judgments.to_dict("records")
    if isinstance(judgments, Mapping):  # {series: {judge: onset | None}}
        for sid, per_judge in judgments.items():
            for judge, idx in per_judge.items():
                rows.append((str(sid), str(judge), idx is not None,
                             None if idx is None else int(idx)))
        return rows
    for n, r in enumerate(judgments):
        if isinstance(r, Mapping):
            sid, judge, steady, idx = (r.get("series_id"), r.get("judge"), r.get("steady"),
                                       r.get("index"))
        else:
            sid, judge, steady, idx = r
        if idx is not None and not isinstance(idx, (int, np.integer)):
            if isinstance(idx, float) and np.isnan(idx):
                idx = None
            elif isinstance(idx, float) and idx.is_integer():
                idx = int(idx)
            else:
                raise InputError(f"judgment {n}", f"index {idx!r} is not a whole number")
        rows.append((str(sid), str(judge), None if steady is None else bool(steady),
                     None if idx is None else int(idx)))
    return rows


def aggregate(judgments: Any, *, rule: str = "general", eps: float = 50.0,
              min_samples: int | None = None, tie: str = "disputed",
              judge_order: Sequence[str] | None = None,
              adjudications: Mapping[str, Adjudication] | None = None,
              eps_frac: float | None = None, lengths: Mapping[str, int] | None = None
              ) -> list[GroundTruth]:
    """Aggregate judges' labels into ground truth, one :class:`GroundTruth` per series.

    Args:
        judgments: rows ``(series_id, judge, steady, index)`` (tuples or mappings, or a DataFrame
            with those columns), or ``{series_id: {judge: onset or None}}`` (None = unsteady).
        rule: ``"general"`` (jagt.md §4, any K) or ``"reference"`` (the study's code, five judges).
        eps: DBSCAN neighbourhood in samples (inclusive).
        min_samples: DBSCAN ``min_samples``; default 3 for ``reference``, the strict majority of the
            onsets present for ``general``.
        tie: what an exact steadiness tie becomes: ``"disputed"`` (steady None, for adjudication),
            ``"unsteady"`` or ``"steady"``.
        judge_order: fixed judge order; default is order of first appearance.
        adjudications: adjudicators' decisions by series id; applied on top, recorded.
        eps_frac: if given, eps is ``eps_frac * N`` for a series of N samples (jagt.md §4 suggests
            ``50/3000``); ``lengths`` then gives N by series id.

    Returns:
        One result per series, in order of first appearance.

    Raises:
        ParameterError: bad settings. InputError: a judge labels a series twice, a negative index,
            or ``rule="reference"`` without exactly five onsets on a steady series.
    """
    _check_settings(rule, eps, min_samples, tie)
    if eps_frac is not None and (not 0 < eps_frac <= 1 or lengths is None):
        raise ParameterError("eps_frac", "must be in (0, 1] and needs the series lengths")
    rows = _rows_from(judgments)
    order = (list(judge_order) if judge_order is not None
             else list(dict.fromkeys(r[1] for r in rows)))
    rank = {j: i for i, j in enumerate(order)}
    per_series: dict[str, dict[str, Vote]] = {}
    for sid, judge, steady, idx in rows:
        if judge not in rank:
            raise InputError(sid, f"judge {judge!r} is not in the judge order")
        if idx is not None and idx < 0:
            raise InputError(sid, f"judge {judge!r}: negative onset {idx}")
        votes = per_series.setdefault(sid, {})
        if judge in votes:
            raise InputError(sid, f"judge {judge!r} labels the series twice")
        votes[judge] = Vote(judge, steady, idx)
    adj = adjudications or {}
    out = []
    for sid, votes in per_series.items():
        ordered = sorted(votes.values(), key=lambda x: rank[x.judge])
        if eps_frac is not None and lengths is not None:   # lengths is given with eps_frac (above)
            if sid not in lengths:
                raise InputError(sid, "eps_frac needs this series' length")
            eps = eps_frac * lengths[sid]
        out.append(aggregate_series(sid, ordered, rule=rule, eps=eps, min_samples=min_samples,
                                    tie=tie, adjudication=adj.get(sid)))
    return out


def aggregate_change_points(per_judge: Mapping[str, Sequence[int]], *, eps: float = 50.0,
                            min_judges: int | None = None) -> list[int]:
    """Consensus change points of one series from several judges' lists (same clustering idea).

    All judges' change points are pooled, sorted and clustered with DBSCAN (``eps``,
    ``min_samples = min_judges``); a cluster is kept when at least ``min_judges`` *different* judges
    put a point in it (default: strict majority of the judges who annotated the series, an empty
    list counting as "looked, none"), and contributes the upper median of its points.
    """
    k = len(per_judge)
    if k == 0:
        return []
    q = min_judges if min_judges is not None else k // 2 + 1
    pooled = sorted((int(cp), j) for j, cps in per_judge.items() for cp in cps)
    if not pooled:
        return []
    labels = dbscan_labels([p for p, _ in pooled], eps, q)
    clusters: dict[int, list[tuple[int, str]]] = {}
    for p, lab in zip(pooled, labels):
        if lab >= 0:
            clusters.setdefault(int(lab), []).append(p)
    out = [upper_median(v for v, _ in m) for m in clusters.values()
           if len({j for _, j in m}) >= q]
    return sorted(set(out))
