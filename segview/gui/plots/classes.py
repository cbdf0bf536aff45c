"""Colours and names of Barrett et al.'s execution classes, shared by the Warm-up panel and the
benchmark view (one colour per class, Okabe-Ito: colour-blind safe)."""
from __future__ import annotations

from ...core.warmup import FLAT, NO_STEADY_STATE, SLOWDOWN, WARMUP

CLASS_COLORS = {FLAT: "#0072B2", WARMUP: "#009E73", SLOWDOWN: "#D55E00",
                NO_STEADY_STATE: "#CC79A7"}
CLASS_LABELS = {FLAT: "flat", WARMUP: "warm-up", SLOWDOWN: "slowdown",
                NO_STEADY_STATE: "no steady state"}


def class_html(cls: str | None, color: str | None = None) -> str:
    """A coloured square and the class's name (rich text); "not analysed" for None."""
    if cls is None:
        return "<i>not analysed</i>"
    color = color or CLASS_COLORS.get(cls, "#222222")
    return f"<span style='color:{color}'>&#9632; {CLASS_LABELS.get(cls, cls)}</span>"
