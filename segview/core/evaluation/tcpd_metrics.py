"""Change-point metrics of the Turing Change Point Dataset benchmark (van den Burg & Williams, "An
Evaluation of Change Point Detection Algorithms", 2020): F1 with a margin and segmentation covering,
both against several annotators.

Index convention: change points are 0-based indices of the first sample of a new segment (segview's
convention). As in the benchmark, index 0 is added to every annotator's set and to the predictions, so
"no change" annotations and predictions still score one true positive for the series start.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..errors import InputError

Annotations = Mapping[str, Iterable[int]]


def _points(cps: Iterable[int], what: str, n_obs: int | None = None) -> set[int]:
    out = {0}
    for c in cps:
        c = int(c)
        if c < 0 or (n_obs is not None and c >= n_obs):
            raise InputError(what, f"change point {c} outside [0, {n_obs})")
        out.add(c)
    return out


def _check(annotations: Annotations) -> None:
    if not annotations:
        raise InputError("annotations", "no annotators")


def true_positives(truth: Iterable[int], predicted: Iterable[int], margin: int = 5) -> set[int]:
    """Truth points matched by a distinct prediction within ``margin`` (nearest first).

    Each prediction matches at most one truth point; truth points are visited in ascending order and
    take the closest unused prediction (the smaller index on ties).
    """
    free = sorted(set(int(x) for x in predicted))
    hits: set[int] = set()
    for tau in sorted(set(int(t) for t in truth)):
        near = [(abs(tau - x), x) for x in free if abs(tau - x) <= margin]
        if near:
            _, best = min(near)
            free.remove(best)
            hits.add(tau)
    return hits


def f_measure(annotations: Annotations, predictions: Iterable[int], margin: int = 5,
              alpha: float = 0.5) -> tuple[float, float, float]:
    """TCPD F-measure of predictions against several annotators.

    Precision uses the union of all annotations; recall is the mean over annotators of the share of
    their points found. ``F = P·R / (α·R + (1-α)·P)`` (``α = 0.5`` gives the harmonic mean).

    Returns:
        (F, precision, recall).
    """
    _check(annotations)
    pred = _points(predictions, "predictions")
    sets = {k: _points(v, f"annotator {k}") for k, v in annotations.items()}
    union: set[int] = set().union(*sets.values())
    precision = len(true_positives(union, pred, margin)) / len(pred)
    recall = sum(len(true_positives(s, pred, margin)) / len(s) for s in sets.values()) / len(sets)
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
