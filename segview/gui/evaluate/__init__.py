"""GUI evaluation view (issue #7): truth and methods in, summary/tests/per-series tables and plots out,
series opened in the explorer with truth and predictions drawn. Uses segview.core.evaluation."""
from __future__ import annotations

__all__ = ["EvaluationWindow"]


def __getattr__(name: str):  # lazy: importing the package must not pull in Qt widgets early
    if name == "EvaluationWindow":
        from .view import EvaluationWindow

        return EvaluationWindow
    raise AttributeError(name)
