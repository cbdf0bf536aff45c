"""Detection results and diagnostic tracks."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .params import Params


@dataclass(frozen=True)
class Track:
    """A diagnostic curve for plotting: sample ``k`` of ``y`` belongs to series index ``x0 + k*stride``
    (or ``x[k]`` when ``x`` is given).

    ``threshold_param`` names the detector parameter drawn as a draggable horizontal line on it.
    ``kind`` is ``"line"`` (a curve) or ``"step"`` (piecewise-constant values).
    ``x_label`` is None for a track over the series' samples (drawn under the series, sharing its
    x axis); otherwise its x is another quantity, which this names (e.g. segneigh's criterion
    against the number of segments): such a track gets an x axis of its own. ``mark_x`` is the x
    of the point the detector chose on it (drawn ringed), if any.
    """

    name: str
    y: NDArray[np.float64]
    x0: float = 0
    stride: float = 1
    y_range: tuple[float, float] | None = None
    threshold_param: str | None = None
    kind: str = "line"
    x: NDArray[np.float64] | None = None
    x_label: str | None = None
    mark_x: float | None = None

    @property
    def over_samples(self) -> bool:
        """True when x is the series' sample index (the track shares the series' x axis)."""
        return self.x_label is None

    def xs(self) -> NDArray[np.float64]:
        if self.x is not None:
            return np.asarray(self.x, dtype=np.float64)
        return self.x0 + self.stride * np.arange(len(self.y), dtype=np.float64)


@dataclass(frozen=True)
class DetectionResult:
    """What a detector found on one series.

    Attributes:
        detector: registered name of the detector.
        params: the coerced parameters used.
        change_points: sorted unique 0-based indices of the first sample of each new segment,
            ``0 < cp < n``.
        steady_start: steady-state onset (first steady sample, or the method's published convention,
            see the detector's docs); ``None`` when the method judges the series never steady or is
            not an onset detector.
        tracks: diagnostic curves for plotting.
        stats: named numbers or arrays.
        notes: human-readable remarks (e.g. an opt-in improvement was used).
        strengths: optional, one number per change point (aligned with ``change_points``): the
            method's own confidence in it, e.g. a posterior probability or a test's confidence;
            ``strength_label`` says which. None when the method has none.
        strength_label: what ``strengths`` holds (shown with it).
    """

    detector: str
    params: Params
    change_points: NDArray[np.int64]
    steady_start: int | None = None
    tracks: tuple[Track, ...] = ()
    stats: Mapping[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    runtime_ms: float = 0.0
    strengths: NDArray[np.float64] | None = None
    strength_label: str = ""

    def __post_init__(self) -> None:
        given = np.asarray(self.change_points, dtype=np.int64).ravel()
        cps, first = np.unique(given, return_index=True)
        cps.flags.writeable = False
        object.__setattr__(self, "change_points", cps)
        if self.strengths is not None:
            s = np.asarray(self.strengths, dtype=np.float64).ravel()
            if s.size != given.size:
                raise ValueError(f"{s.size} strengths for {given.size} change points")
            s = s[first]  # in the order of the sorted change points
            s.flags.writeable = False
            object.__setattr__(self, "strengths", s)
        if self.steady_start is not None:
            object.__setattr__(self, "steady_start", int(self.steady_start))

    @property
    def steady(self) -> bool:
        return self.steady_start is not None

    def track(self, name: str) -> Track:
        for t in self.tracks:
            if t.name == name:
                return t
        raise KeyError(name)
