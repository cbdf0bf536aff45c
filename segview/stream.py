"""Steady-state detection while a benchmark runs (``segview.stream.SteadyStateMonitor``).

The implementation lives in :mod:`segview.core.stream`; see its docstring for when a verdict is
final and what a measurement costs.
"""
from __future__ import annotations

from .core.stream import DEFAULT_GROWTH, SteadyStateMonitor, Verdict

__all__ = ["DEFAULT_GROWTH", "SteadyStateMonitor", "Verdict"]
