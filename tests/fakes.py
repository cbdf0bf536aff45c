"""Small fake detectors for testing the framework, CLI and GUI mechanics without real algorithms."""
from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

from segview.core import registry
from segview.core.params import ParamSpec
from segview.core.registry import DetectorSpec
from segview.core.result import DetectionResult, Track


def _threshold_run(values, params, ctx):
    """Onset = first index from which every value stays below ``level`` * max."""
    level = params["level"] * float(np.max(np.abs(values)) or 1.0)
    above = np.flatnonzero(np.abs(values) > level)
    onset = int(above[-1] + 1) if above.size else 0
    steady = onset if onset < values.size else None
    track = Track("relative level", np.abs(values) / (np.max(np.abs(values)) or 1.0),
                  y_range=(0.0, 1.0), threshold_param="level")
    cps = [onset] if 0 < onset < values.size else []
    return DetectionResult("fake_onset", params, np.array(cps, dtype=np.int64), steady, (track,))


FAKE_ONSET = DetectorSpec(
    name="fake_onset", label="Fake onset", version="1", produces="onset",
    params=(ParamSpec("level", "float", 0.5, 0.0, 1.0, 0.01, help="fraction of the maximum"),),
    run=_threshold_run, min_length=2)


@contextlib.contextmanager
def registered(*specs: DetectorSpec) -> Iterator[None]:
    """Register fake detectors for the duration of a test."""
    registry.all_specs()  # make sure the real ones are loaded first
    for s in specs:
        registry.register(s)
    try:
        yield
    finally:
        for s in specs:
            registry._REGISTRY.pop(s.name.lower(), None)
