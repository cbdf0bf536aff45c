"""Named warnings of harness readers: a file loads, but part of it looks wrong.

A crashed process execution (Krun's empty list, a JMH fork that printed ``<failure>``) is kept out of
the values but never dropped silently: :func:`report` emits a
:class:`~segview.core.errors.DataFormatWarning` naming the file and place, and records the same text in
the metadata key ``load_warnings`` (a list of str) of the benchmark's first loaded execution (of the
file's first series when the benchmark has none left), so the GUI and ``segview inspect`` show it.
"""
from __future__ import annotations

from collections.abc import Sequence
import warnings

from ..errors import DataFormatWarning
from ..model import Series

LOAD_WARNINGS = "load_warnings"


def report(series: Sequence[Series], benchmark: str | None, source: str, reason: str,
           where: str | None = None) -> DataFormatWarning:
    """Warn about ``reason`` at ``where`` in ``source`` and attach it to ``series`` (see the module
    docstring). Returns the warning."""
    warning = DataFormatWarning(source, reason, where)
    target = next((s for s in series if s.metadata.get("benchmark") == benchmark), None)
    if target is None and series:
        target = series[0]
    if target is not None:
        target.metadata.setdefault(LOAD_WARNINGS, []).append(str(warning))  # type: ignore[attr-defined]  # Series.metadata is typed read-only (Mapping); loaders fill it while building
    warnings.warn(warning, stacklevel=3)
    return warning
