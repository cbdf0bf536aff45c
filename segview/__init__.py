"""segview: find steady states and change points in performance time series.

Public API (imported lazily, never loads Qt)::

    segview.detect(values_or_series, "kbkssd", t_crit=4)
    segview.detect_per_dimension(multivariate_series, "kbkssd")   # {dimension: result}
    segview.methods()
    segview.penalty_path(values, "pelt", 2.0, 500.0)   # CROPS: every optimal segmentation
    segview.Series(values, x=None, id="name")
    segview.load(path)            # file or folder -> Dataset of Series
    segview.aggregate(...)        # judges' labels -> ground truth (annotation issue)
    segview.SteadyStateMonitor()  # KB-KSSD fed one measurement at a time (segview.stream)

Acronyms (KB-KSSD, CP-SSD, nRSS, PMNF, JAGT, MDL, FPOP, PELT, CROPS, MBIC, BOCPD) are spelled out,
each with the module that implements it, in ``docs/glossary.md``.
"""
from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "detect": ("segview.core.api", "detect"),
    "detect_per_dimension": ("segview.core.api", "detect_per_dimension"),
    "methods": ("segview.core.api", "methods"),
    "penalty_path": ("segview.core.penalty_path", "penalty_path"),
    "Series": ("segview.core.model", "Series"),
    "load": ("segview.core.io", "load"),
    "Dataset": ("segview.core.io", "Dataset"),
    "DetectionResult": ("segview.core.result", "DetectionResult"),
    "RunContext": ("segview.core.context", "RunContext"),
    "aggregate": ("segview.core.annotation.aggregate", "aggregate"),
    "SteadyStateMonitor": ("segview.core.stream", "SteadyStateMonitor"),
}

__all__ = sorted(_LAZY) + ["__version__"]


def __getattr__(name: str) -> Any:
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'segview' has no attribute {name!r}") from None
    value = getattr(import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
