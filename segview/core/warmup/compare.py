"""Before/after comparison of two warm-up analyses (issue 27 point 3): per benchmark present on both
sides, the class change, the steady-state performance ratio AFTER / BEFORE with a confidence
interval, and a verdict.

* **Ratio**: the ratio of the two sides' steady means (mean of the executions' steady means, the
  estimate of :func:`.hierarchical_bootstrap`). Its interval comes from Kalibera & Jones'
  two-level bootstrap run on each side independently (executions, then iterations, with
  replacement; :func:`.hierarchical_resamples`): the ``r``-th resample of AFTER divided by the
  ``r``-th of BEFORE, percentile interval. Both streams are seeded from ``seed``.
* **Verdict**: the interval excludes 1 or not. Above 1 means larger values after: *slower* for
  times (lower is better), *faster* for throughput (higher is better); below 1 the reverse;
  otherwise *no significant difference*. A benchmark without steady figures on a side (an
  execution without a steady state, nothing analysed) gets no ratio and the verdict
  ``not comparable`` with the reason.
* **Units**: two time units (``ms`` and ``us``...) are converted (AFTER into BEFORE's unit); other
  disagreements (``ops/s`` against ``ms``, opposite directions) are a named error for that
  benchmark (:class:`UnitMismatchError`'s message in ``error``), and the others are compared.
* Benchmarks on one side only are listed in ``only_before`` / ``only_after``.

Qt-free; ``segview compare`` formats what :func:`compare` returns.
"""
from __future__ import annotations

from functools import partial
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..benchmark import HIGHER
from ..errors import InputError
from .analysis import BenchmarkWarmup, seconds_per_unit
from .bootstrap import SEED, hierarchical_resamples

FASTER, SLOWER, SAME = "faster", "slower", "no significant difference"
NOT_COMPARABLE = "not comparable"
VERDICTS = (FASTER, SLOWER, SAME, NOT_COMPARABLE)


class UnitMismatchError(InputError):
    """The two sides of a comparison measure a benchmark in units that cannot be converted."""


def verdict(low: float, high: float, direction: str) -> str:
    """The verdict for a ratio interval AFTER / BEFORE ``[low, high]``: the interval excludes 1
    above (larger values after) or below, read in the benchmark's ``direction``."""
    if low > 1.0:
        return FASTER if direction == HIGHER else SLOWER
    if high < 1.0:
        return SLOWER if direction == HIGHER else FASTER
    return SAME


def unit_factor(before_unit: str, after_unit: str, name: str = "") -> float:
    """Factor turning AFTER's values into BEFORE's unit: 1 when the units are equal, the ratio of
    seconds for two time units.

    Raises:
        UnitMismatchError: the units differ and are not both time units.
    """
    if (before_unit or "").strip() == (after_unit or "").strip():
        return 1.0
    b, a = seconds_per_unit(before_unit), seconds_per_unit(after_unit)
    if a is None or b is None:
        raise UnitMismatchError(name or "benchmark", f"units disagree: before {before_unit!r}, "
                                                     f"after {after_unit!r}; not converted")
    return a / b


@dataclass(frozen=True)
class BenchmarkComparison:
    """One benchmark compared (see the module doc). ``ratio``/``ci`` are AFTER / BEFORE."""

    name: str
    before_class: str | None
    after_class: str | None
    unit: str
    direction: str
    before_mean: float | None = None
    after_mean: float | None = None
    ratio: float | None = None
    ci: tuple[float, float] | None = None
    confidence: float = 0.95
    verdict: str = NOT_COMPARABLE
    reason: str | None = None
    error: str | None = None
    factor: float = 1.0

    @property
    def class_changed(self) -> bool:
        return self.before_class != self.after_class

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "before_class": self.before_class,
                "after_class": self.after_class, "class_changed": self.class_changed,
                "unit": self.unit, "direction": self.direction,
                "before_mean": self.before_mean, "after_mean": self.after_mean,
                "ratio": self.ratio, "ci": None if self.ci is None else list(self.ci),
                "confidence": self.confidence, "verdict": self.verdict, "reason": self.reason,
                "error": self.error, "after_unit_factor": self.factor}


@dataclass(frozen=True)
class Comparison:
    """All benchmarks compared, and those on one side only."""

    benchmarks: tuple[BenchmarkComparison, ...]
    only_before: tuple[str, ...] = ()
    only_after: tuple[str, ...] = ()
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def errors(self) -> tuple[BenchmarkComparison, ...]:
        return tuple(b for b in self.benchmarks if b.error)

    def to_dict(self) -> dict[str, Any]:
        return {"benchmarks": [b.to_dict() for b in self.benchmarks],
                "only_before": list(self.only_before), "only_after": list(self.only_after),
                "params": dict(self.params)}


def _steady_groups(r: BenchmarkWarmup) -> list[np.ndarray] | str:
    if r.steady_reason:
        return r.steady_reason
    groups = [np.asarray(e.steady_values, dtype=np.float64) for e in r.analysed]
    if groups and all(g.size == 0 for g in groups) and any(
            e.steady_mean is not None for e in r.analysed):
        return ("the executions' steady iterations are not in this input (a 'segview warmup "
                "--json' file written before format_version 2): run segview warmup --json again, "
                "or compare the result files themselves")
    if not groups or any(g.size == 0 for g in groups):
        return "no execution with steady iterations"
    return groups


def compare_benchmark(before: BenchmarkWarmup, after: BenchmarkWarmup, *,
                      resamples: int = 10000, confidence: float = 0.95, seed: int = SEED,
                      iteration_level: str = "auto") -> BenchmarkComparison:
    """Compare one benchmark's two analyses (see the module doc). Never raises for bad data: a
    unit disagreement or missing steady figures come back in ``error`` / ``reason``."""
    if not 0 < confidence < 1:
        raise InputError("confidence", f"must lie in (0, 1), got {confidence}")
    made = partial(BenchmarkComparison, name=before.name, before_class=before.classification,
                   after_class=after.classification, unit=before.unit,
                   direction=before.direction, confidence=confidence)
    if before.direction != after.direction:
        err = UnitMismatchError(before.name, f"directions disagree: before {before.direction!r} "
                                             f"({before.unit!r}), after {after.direction!r} "
                                             f"({after.unit!r})")
        return made(error=f"{type(err).__name__}: {err}")
    try:
        factor = unit_factor(before.unit, after.unit, before.name)
    except UnitMismatchError as err:
        return made(error=f"{type(err).__name__}: {err}")
    gb, ga = _steady_groups(before), _steady_groups(after)
    if isinstance(gb, str) or isinstance(ga, str):
        why = "; ".join(f"{side}: {g}" for side, g in (("before", gb), ("after", ga))
                        if isinstance(g, str))
        return made(factor=factor, reason=why)
    ga = [g * factor for g in ga]
    mb = math.fsum(float(g.mean()) for g in gb) / len(gb)
    ma = math.fsum(float(g.mean()) for g in ga) / len(ga)
    if not (mb > 0 and ma > 0) and not (mb < 0 and ma < 0):
        return made(before_mean=mb, after_mean=ma, factor=factor,
                    reason="steady means not of one sign: no ratio")
    seq_b, seq_a = np.random.SeedSequence(seed).spawn(2)
    sb, _ = hierarchical_resamples(gb, resamples, np.random.default_rng(seq_b), iteration_level)
    sa, _ = hierarchical_resamples(ga, resamples, np.random.default_rng(seq_a), iteration_level)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = sa / sb
    alpha = (1 - confidence) / 2
    lo, hi = (float(v) for v in np.quantile(ratios, [alpha, 1 - alpha]))
    return made(before_mean=mb, after_mean=ma, ratio=ma / mb, ci=(lo, hi),
                verdict=verdict(lo, hi, before.direction), factor=factor)


def compare(before: Sequence[BenchmarkWarmup], after: Sequence[BenchmarkWarmup], *,
            resamples: int = 10000, confidence: float = 0.95, seed: int = SEED,
            iteration_level: str = "auto") -> Comparison:
    """Compare every benchmark present on both sides (by name, in BEFORE's order); list the
    others. See the module doc."""
    a_by = {r.name: r for r in after}
    b_names = {r.name for r in before}
    rows = tuple(compare_benchmark(b, a_by[b.name], resamples=resamples, confidence=confidence,
                                   seed=seed, iteration_level=iteration_level)
                 for b in before if b.name in a_by)
    return Comparison(rows, tuple(r.name for r in before if r.name not in a_by),
                      tuple(r.name for r in after if r.name not in b_names),
                      {"resamples": resamples, "confidence": confidence, "seed": seed,
                       "iteration_level": iteration_level})
