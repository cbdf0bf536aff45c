"""Cheap pre-run estimates: parameters whose extremes would take minutes or gigabytes.

Every number parameter has bounds, but a value inside them can still be ruinous on a given series:
Auto-PARM's ``n_breaks`` at its maximum made a worker allocate 5.5 GB, CP-SSD's
``bootstrap_resamples`` scales its time with the series length, optimal partitioning is quadratic.
:func:`cost_warning` looks at the series length and the parameters only (no data, no
allocation) and returns one sentence naming the parameter and the expected cost, or None.
The explorer shows it before it runs a method (and does not start it on its own then); the CLI
prints it on stderr and runs anyway.

A detector declares its own estimate with ``DetectorSpec(cost_warning=fn)``; the built-in ones
are in :data:`BUILTIN`. Thresholds: :data:`MEMORY_LIMIT` bytes and :data:`WORK_LIMIT` elementary
steps (a few minutes of one core at the rates measured in ``docs``/benchmarks: ~1e8 simple steps
per second in the numba kernels).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["cost_warning", "BUILTIN", "MEMORY_LIMIT", "WORK_LIMIT", "autoparm_max_breaks"]

MEMORY_LIMIT = 2 * 2**30  # bytes of one detector run before a warning
WORK_LIMIT = 3e10  # elementary steps (~5 minutes at 1e8 steps/s)

Estimate = Callable[[int, Mapping[str, Any]], "str | None"]


def _gb(nbytes: float) -> str:
    return f"{nbytes / 2**30:.1f} GB"


def autoparm_max_breaks(n: int, params: Mapping[str, Any]) -> int:
    """The most breakpoints a series of ``n`` samples admits: every piece needs at least the
    order-0 minimum span (``min_span`` and the span table), so ``n // span - 1``."""
    return max(n // _autoparm_min_piece(params) - 1, 0)


def _autoparm_min_piece(params: Mapping[str, Any]) -> int:
    from .detectors.autoparm import spans_for
    return int(spans_for(int(params["max_order"]), int(params["min_span"])).min())


def _autoparm(n: int, p: Mapping[str, Any]) -> str | None:
    if p.get("mode") == "exact":
        k = p.get("n_breaks")
        if k is not None:
            top = autoparm_max_breaks(n, p)
            if k > top:
                return (f"n_breaks={k} is more than a series of {n} samples admits (at most "
                        f"{top} with pieces of at least {_autoparm_min_piece(p)} samples); "
                        "the run is refused")
            mem = 16.0 * (k + 2) * (n + 1)  # cost and backtrack tables of the forced search
            if mem > MEMORY_LIMIT:
                return f"n_breaks={k} on {n} samples needs about {_gb(mem)} of tables"
        if p.get("search") == "dense":
            mem = 16.0 * (max(8, n // 200) + 1) * (n + 1)
            if mem > MEMORY_LIMIT:
                return (f"search=dense on {n} samples needs about {_gb(mem)} of tables "
                        "(search=pruned does not)")
        # measured: 4,000 samples, max_order 20, in 1.2 s of CPU (~1.4e8 of these steps a second)
        work = 0.5 * n * n * (int(p.get("max_order", 20)) + 1)
        b = int(p.get("bootstrap", 0) or 0)
        if work > WORK_LIMIT:
            return (f"the exact search is quadratic in the length: {n} samples are about "
                    f"{work:.0e} steps (minutes to hours); mode=ga or a shorter series is faster")
        if b and (1 + b) * work > WORK_LIMIT:
            return (f"bootstrap={b} repeats the whole segmentation {b} times: about "
                    f"{(1 + b) * work:.0e} steps on {n} samples (minutes or more)")
        return None
    else:
        chromosomes = int(p["restarts"]) * int(p["islands"]) * int(p["population"])
        work = chromosomes * float(n) * int(p["max_migrations"]) * int(p["migration_interval"])
        if chromosomes > 10 * 20 * 100 * 50 or work > 1000 * WORK_LIMIT:
            return (f"GA: restarts x islands x population = {chromosomes:,} chromosomes "
                    f"(default 100,000) on {n} samples may take hours")
    b = int(p.get("bootstrap", 0) or 0)
    if b > 0 and b * float(n) > 2e6:
        return f"bootstrap={b} repeats the whole segmentation {b} times on {n} samples"
    return None


def _cpssd(n: int, p: Mapping[str, Any]) -> str | None:
    # measured: 100,000 resamples of 3,000 samples in 1.6 s of CPU
    work = float(p["bootstrap_resamples"]) * n
    if work > WORK_LIMIT:
        return (f"bootstrap_resamples={p['bootstrap_resamples']} on {n} samples is about "
                f"{work:.0e} resampled values (minutes or more)")
    return None


def _fisher(n: int, p: Mapping[str, Any]) -> str | None:
    if p.get("critical") == "simulate":
        work = float(p["replications"]) * n * max(1, n.bit_length())
        if work > WORK_LIMIT:
            return (f"critical=simulate: {p['replications']} replications of {n} samples are "
                    f"about {work:.0e} steps (minutes or more); critical=table is instant")
    if p.get("calibrate") in ("block", "sieve"):
        work = float(p["boot_reps"]) * n * max(1, n.bit_length())
        if work > WORK_LIMIT:
            return (f"calibrate={p['calibrate']}: {p['boot_reps']} resamples of {n} samples are "
                    f"about {work:.0e} steps (minutes or more)")
    return None


def _quadratic(label: str) -> Estimate:
    def estimate(n: int, p: Mapping[str, Any]) -> str | None:
        search = p.get("search", "dp")
        if search == "fpop":
            return None  # near-linear
        if search == "auto":
            from .detectors.fpop import fpop_refusal
            if fpop_refusal(p.get("cost", "l2"), p.get("min_size"), p.get("penalty", "mbic"),
                            int(p.get("threads", 1))) is None:
                return None  # auto picks FPOP here
        work = 0.5 * float(n) * n
        if work > WORK_LIMIT:
            return (f"{label} is quadratic in the length: {n} samples are about {work:.0e} "
                    "cost evaluations (minutes to hours)")
        return None
    return estimate


BUILTIN: dict[str, Estimate] = {
    "autoparm": _autoparm,
    "cpssd": _cpssd,
    "fisher": _fisher,
    "op": _quadratic("optimal partitioning"),
    # PELT prunes almost nothing at warmup_stats' penalty (15 ln n): ~n^2/2 segment costs
    "barrett": _quadratic("warmup_stats' PELT (its penalty leaves little to prune)"),
}


def cost_warning(spec: Any, n: int, params: Mapping[str, Any]) -> str | None:
    """One sentence when running ``spec`` with ``params`` on ``n`` samples would take minutes or
    gigabytes, else None. Never raises: an estimate that fails says nothing."""
    fn = getattr(spec, "cost_warning", None) or BUILTIN.get(str(getattr(spec, "name", "")))
    if fn is None:
        return None
    try:
        text = fn(int(n), params)
    except (KeyError, TypeError, ValueError, OverflowError, ImportError):
        return None
    return f"{spec.name}: {text}" if text else None
