"""Change-point metrics of the Turing Change Point Dataset benchmark (van den Burg & Williams, "An
Evaluation of Change Point Detection Algorithms", 2020): F1 with a margin and segmentation covering,
both against several annotators, computed the way TCPDBench computes them, to the last bit.

Index convention: the metrics compare numbers as given; the predictions must use the annotations'
convention. TCPDBench scores its R methods' *reported locations* (the last sample before a change,
segview's change point - 1, kept when ``1 <= location < n - 1``) against the annotations as they are;
:func:`segview.core.io.detections.to_tcpdbench` converts segview change points to those locations.
As in the benchmark, index 0 is added to every annotator's set and to the predictions, so "no change"
annotations and predictions still score one true positive for the series start.

Two details of TCPDBench change the result and are reproduced on purpose:

* **Set-iteration order.** The benchmark builds Python sets (each annotator's points, the
  predictions, the union of all annotators' points) and matches true points to predictions in the
  order the true-point set iterates: CPython's order for small integers is by value modulo the
  table size (with probing on collisions), not ascending. When two true points are within the margin
  of one prediction, the one visited first takes it, so the order can change the F1. The sets here are
  built from the same sequences in the same order (annotators in file order, each annotator's list in
  file order, predictions in the order given, 0 added last), so they iterate identically.
* **Recall** is ``(1 / K) * sum(recall_k)`` (a multiplication by the rounded 1/K, summed in annotator
  order), which differs in the last bits from ``sum / K``. Precision is
  ``|TP(union of annotators)| / |predictions|``; ``F = P R / (alpha R + (1 - alpha) P)``.

Cover: for each annotator, ``(1/n) sum over the annotator's segments A of |A| * max_{A'} J(A, A')``
over the predicted segments A' (J the Jaccard index ``|A n A'| / |A u A'|``), accumulated in segment
order and divided by n at the end; the mean over annotators is ``sum / K``.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..errors import InputError

Annotations = Mapping[str, Iterable[int]]


def _checked(cps: Iterable[int], what: str, n_obs: int | None = None) -> list[int]:
    out = []
    for c in cps:
        c = int(c)
        if c < 0 or (n_obs is not None and c >= n_obs):
            raise InputError(what, f"change point {c} outside [0, {n_obs})")
        out.append(c)
    return out


def _points(cps: Iterable[int], what: str, n_obs: int | None = None) -> set[int]:
    """``set(cps)`` with 0 added last (TCPDBench's construction, hence its iteration order)."""
    out = set(_checked(cps, what, n_obs))
    out.add(0)
    return out


def _check(annotations: Annotations) -> None:
    if not annotations:
        raise InputError("annotations", "no annotators")


def true_positives(truth: Iterable[int], predicted: Iterable[int], margin: int = 5) -> set[int]:
    """Truth points matched by a distinct prediction within ``margin``.

    Truth points are visited in the iteration order of ``truth`` (pass a set to get TCPDBench's);
    each takes the closest prediction not used yet (the smaller index on equal distance).
    """
    free = set(list(predicted))
    hits: set[int] = set()
    for tau in truth:
        near = [(abs(tau - x), x) for x in free if abs(tau - x) <= margin]
        if near:
            free.remove(min(near)[1])
            hits.add(tau)
    return hits


def f_measure(annotations: Annotations, predictions: Iterable[int], margin: int = 5,
              alpha: float = 0.5) -> tuple[float, float, float]:
    """TCPD F-measure of predictions against several annotators (module docstring).

    Returns:
        (F, precision, recall).
    """
    _check(annotations)
    per = [_points(v, f"annotator {k}") for k, v in annotations.items()]
    pred = _points(predictions, "predictions")
    union: set[int] = set()
    for s in per:
        for tau in s:
            union.add(tau)
    precision = len(true_positives(union, pred, margin)) / len(pred)
    recall = 1 / len(per) * sum(len(true_positives(s, pred, margin)) / len(s) for s in per)
    if precision == 0 and recall == 0:
        return 0.0, precision, recall
    f = precision * recall / (alpha * recall + (1 - alpha) * precision)
    return f, precision, recall


def _segments(cps: set[int], n_obs: int) -> list[tuple[int, int]]:
    bounds = sorted(cps | {0, n_obs})
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]


def _jaccard(a: tuple[int, int], b: tuple[int, int]) -> float:
    inter = max(0, min(a[1], b[1]) - max(a[0], b[0]))
    union = (a[1] - a[0]) + (b[1] - b[0]) - inter
    return inter / union if union else 0.0


def covering_single(truth: Iterable[int], predictions: Iterable[int], n_obs: int) -> float:
    """Cover of the truth partition by the predicted one:
    ``(1/n) Σ_{A in truth} |A| · max_{A' in pred} J(A, A')``."""
    if n_obs < 1:
        raise InputError("n_obs", f"series length must be positive, got {n_obs}")
    g = _segments(_points(truth, "annotation", n_obs), n_obs)
    p = _segments(_points(predictions, "predictions", n_obs), n_obs)
    total = 0.0
    j = 0
    for a in g:  # both partitions are sorted: only overlapping predicted segments matter
        while j < len(p) and p[j][1] <= a[0]:
            j += 1
        best, k = 0.0, j
        while k < len(p) and p[k][0] < a[1]:
            best = max(best, _jaccard(a, p[k]))
            k += 1
        total += (a[1] - a[0]) * best
    return total / n_obs


def covering(annotations: Annotations, predictions: Iterable[int], n_obs: int) -> float:
    """Mean over annotators of :func:`covering_single` (the TCPD cover metric)."""
    _check(annotations)
    pred = list(predictions)
    return sum(covering_single(v, pred, n_obs) for v in annotations.values()) / len(annotations)
