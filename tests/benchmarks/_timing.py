"""CPU-time figures that hold on a loaded machine (issue 31, "Figures that hold").

A figure from one quiet run misleads: this machine has two cores shared with other work, so wall time
measures the neighbours. The helpers here measure **CPU time of this process**
(:func:`time.process_time`, all threads), repeat every case at least 5 times, **interleave** the
cases (one repetition of each, in a rotating order, before the next) so that a change in load hits
all of them alike, and report the **median and the range** together with the load average
(:func:`os.getloadavg`) seen while measuring. A ratio between two cases is the median and range of
the per-repetition ratios (each repetition's cases ran back to back).

    from _timing import measure, ratio, fmt
    res = measure({"kernel": lambda: k(y), "detect": lambda: segview.detect(y, "pelt")}, reps=5)
    print(fmt(res["detect"]), fmt(ratio(res["detect"], res["kernel"]), unit="x"))
"""
from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

MIN_REPS = 5


@dataclass(frozen=True)
class Figure:
    """Median and range of repeated measurements, with the 1-minute load average seen."""

    samples: tuple[float, ...]
    load: tuple[float, float] = (float("nan"), float("nan"))

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def lo(self) -> float:
        return min(self.samples)

    @property
    def hi(self) -> float:
        return max(self.samples)


def cpu(fn: Callable[[], object], clock: Callable[[], float] = time.process_time) -> float:
    """CPU seconds ``fn()`` takes in this process (every thread), or ``clock``'s seconds."""
    t0 = clock()
    fn()
    return clock() - t0


def measure(cases: dict[str, Callable[[], object]], reps: int = MIN_REPS, warmup: int = 1,
            clock: Callable[[], float] = time.process_time) -> dict[str, Figure]:
    """CPU time of each case, ``reps`` (>= 5) interleaved repetitions after ``warmup`` untimed
    rounds (compilation, caches); repetition ``r`` runs the cases rotated by ``r``. Pass
    ``clock=time.perf_counter`` only where wall time is the point (threads)."""
    if reps < MIN_REPS:
        raise ValueError(f"reps={reps}: a figure needs at least {MIN_REPS} repetitions")
    names = list(cases)
    for _ in range(warmup):
        for name in names:
            cases[name]()
    samples: dict[str, list[float]] = {name: [] for name in names}
    loads = [os.getloadavg()[0]]
    for r in range(reps):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            samples[name].append(cpu(cases[name], clock))
        loads.append(os.getloadavg()[0])
    load = (min(loads), max(loads))
    return {name: Figure(tuple(s), load) for name, s in samples.items()}


def ratio(num: Figure, den: Figure) -> Figure:
    """Per-repetition ratios ``num / den`` (the two were measured in the same repetitions)."""
    if len(num.samples) != len(den.samples):
        raise ValueError("ratio of figures with different numbers of repetitions")
    return Figure(tuple(a / b for a, b in zip(num.samples, den.samples)),
                  (min(num.load[0], den.load[0]), max(num.load[1], den.load[1])))


def fmt(f: Figure, unit: str = "s") -> str:
    """``median (lo-hi)`` in seconds (ms below 1 s), or with ``unit="x"`` a ratio, or ``"%"``."""
    if unit == "x":
        return f"{f.median:.2f}x ({f.lo:.2f}-{f.hi:.2f})"
    if unit == "%":
        return f"{100 * f.median:.1f} % ({100 * f.lo:.1f}-{100 * f.hi:.1f})"
    if f.hi < 1.0:
        return f"{1e3 * f.median:.1f} ms ({1e3 * f.lo:.1f}-{1e3 * f.hi:.1f})"
    return f"{f.median:.3g} s ({f.lo:.3g}-{f.hi:.3g})"


def fmt_load(f: Figure) -> str:
    """The 1-minute load average range seen while ``f`` was measured."""
    return f"load {f.load[0]:.1f}-{f.load[1]:.1f}"
