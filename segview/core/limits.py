"""Cheap pre-run estimates: parameters whose extremes would take minutes or gigabytes.

Every number parameter has bounds, but a value inside them can still be ruinous on a given series:
Auto-PARM's ``n_breaks`` at its maximum made a worker allocate 5.5 GB, CP-SSD's
``bootstrap_resamples`` scales its time with the series length, optimal partitioning is quadratic.
:func:`cost_warning` looks at the series length and the parameters only (no data, no
allocation) and returns one sentence naming the parameter and the expected cost, or None.
The explorer shows it before it runs a method (and does not start it on its own then); the CLI
prints it on stderr and runs anyway.

One table: every detector declares its growth beside its parameters, ``DetectorSpec(cost=fn)``
with ``fn(n, params) -> Cost`` (:class:`segview.core.registry.Cost`: seconds, bytes, the
sentence); this module reads only those declarations, so a newly registered method is covered
the day it is registered (``tests/core/test_cost_table.py`` checks every one declares its cost).
Thresholds: :data:`MEMORY_LIMIT` bytes and :data:`TIME_LIMIT` seconds of one core
(:data:`WORK_LIMIT` elementary steps at ~1e8 simple steps per second, the rate measured in the
numba kernels: one minute, the longest a user waits for a result without having asked for a
long run).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .registry import STEPS_PER_SECOND, Cost, gib

__all__ = ["cost_warning", "estimate", "MEMORY_LIMIT", "WORK_LIMIT", "TIME_LIMIT",
           "length_limit"]

MEMORY_LIMIT = 2 * 2**30  # bytes of one detector run before a warning
WORK_LIMIT = 6e9  # elementary steps (~1 minute at 1e8 steps/s)
TIME_LIMIT = WORK_LIMIT / STEPS_PER_SECOND  # seconds of one core (60)


def length_limit(spec: Any, n: int, params: Mapping[str, Any], name: str) -> float | None:
    """The largest value parameter ``name`` of ``spec`` admits on ``n`` samples, as the detector
    declares it (``DetectorSpec.length_limits``), or None when it declares no such bound."""
    fn = getattr(spec, "length_limits", None)
    if fn is None:
        return None
    return fn(int(n), params).get(name)


def estimate(spec: Any, n: int, params: Mapping[str, Any]) -> tuple[Cost, ...]:
    """The costs ``spec`` declares for a run on ``n`` samples (``()`` when it declares none).

    Raises what the declaration raises (a declaration that fails is a bug; :func:`cost_warning`
    keeps quiet about it instead)."""
    fn = getattr(spec, "cost", None)
    if fn is None:
        return ()
    out = fn(int(n), params)
    return tuple(out) if isinstance(out, (list, tuple)) else (out,)


def _over(cost: Cost) -> bool:
    return cost.warn or cost.seconds > TIME_LIMIT or cost.bytes > MEMORY_LIMIT


def _generic(cost: Cost, n: int) -> str:
    return (f"{n} samples need about {cost.seconds / 60:.0f} minutes and {gib(cost.bytes)} "
            "(minutes or gigabytes)")


def cost_warning(spec: Any, n: int, params: Mapping[str, Any]) -> str | None:
    """One sentence when running ``spec`` with ``params`` on ``n`` samples would take minutes or
    gigabytes, else None. Never raises: an estimate that fails says nothing."""
    try:
        costs = estimate(spec, n, params)
        if not costs and getattr(spec, "cost_warning", None) is not None:
            text = spec.cost_warning(int(n), params)  # a plug-in's free-form estimate
            return f"{spec.name}: {text}" if text else None
    except (KeyError, TypeError, ValueError, OverflowError, ImportError, ZeroDivisionError):
        return None
    for cost in costs:
        if _over(cost):
            return f"{spec.name}: {cost.why or _generic(cost, int(n))}"
    return None
