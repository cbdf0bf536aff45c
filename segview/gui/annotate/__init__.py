"""Annotation mode: judges label series into the annotation store (blind, keyboard-first, undoable).

``window.AnnotationWindow`` is the entry point; ``plot`` draws the series and the judge's marks,
``session_dialog`` picks the database, session and judge, ``review`` lists disagreements and shows
the other judges' labels and detector overlays (only there).
"""
from __future__ import annotations

__all__ = ["AnnotationWindow"]


def __getattr__(name: str) -> object:
    if name == "AnnotationWindow":
        from .window import AnnotationWindow
        return AnnotationWindow
    raise AttributeError(name)
