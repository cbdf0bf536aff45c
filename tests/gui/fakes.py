"""Fake detectors for the GUI tests (registered per test, removed afterwards)."""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import numpy as np

from segview.core import registry
from segview.core.params import ParamSpec
from segview.core.registry import DetectorSpec
from segview.core.result import DetectionResult, Track


class CallLog:
    """Thread-safe record of the parameters each fake run received."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls: list[dict] = []
        self.finished: list[dict] = []
        self.prepares = 0

    def add(self, params: object) -> None:
        with self.lock:
            self.calls.append(dict(params))

    def done(self, params: object) -> None:
        with self.lock:
            self.finished.append(dict(params))

    def reset(self) -> None:
        with self.lock:
            self.calls.clear()
            self.finished.clear()
            self.prepares = 0


LOG = CallLog()
GATE = threading.Event()  # releases the "gated" fake


def _prepare_level(values, params, ctx):
    with LOG.lock:
        LOG.prepares += 1
    scale = float(np.max(np.abs(values))) or 1.0
    return np.abs(values) / scale


def _onset_run(values, params, ctx):
    """Onset = first index after which |x|/max stays below ``level``; the curve is a track."""
    LOG.add(params)
    rel = ctx.prepared
    above = np.flatnonzero(rel > params["level"])
    onset = int(above[-1] + 1) if above.size else 0
    steady = onset if onset < values.size else None
    track = Track("relative level", rel, y_range=(0.0, 1.0), threshold_param="level")
    cps = [onset] if 0 < onset < values.size else []
    LOG.done(params)
    return DetectionResult("fake_onset", params, np.array(cps, dtype=np.int64), steady, (track,))


def _cp_run(values, params, ctx):
    """Change points every ``every`` samples."""
    cps = np.arange(params["every"], values.size, params["every"], dtype=np.int64)
    return DetectionResult("fake_cp", params, cps)


def _boom_run(values, params, ctx):
    raise ZeroDivisionError("fake detector bug")


def _slow_run(values, params, ctx):
    """Takes ~``ms`` milliseconds in small cancellable steps; cps at ``at``."""
    LOG.add(params)
    steps = max(1, int(params["ms"] / 5))
    for k in range(steps):
        ctx.check()
        ctx.cancel_event.wait(0.005)  # stands in for 5 ms of work; wakes early on cancel
        ctx.progress((k + 1) / steps, "working")
    ctx.check()
    LOG.done(params)
    return DetectionResult("fake_slow", params, np.array([params["at"]], dtype=np.int64),
                           int(params["at"]))


def _gated_run(values, params, ctx):
    """Ignores cancellation: the first call (at < 100) blocks until GATE is set."""
    LOG.add(params)
    if params["at"] < 100:
        GATE.wait(10)
    LOG.done(params)
    return DetectionResult("fake_gated", params, np.array([params["at"]], dtype=np.int64))


def _at_param(default: int = 50) -> ParamSpec:
    return ParamSpec("at", "int", default, 1, 1000, 1, unit="samples", help="where to put the change")


FAKE_ONSET = DetectorSpec(
    name="fake_onset", label="Fake onset", version="1", produces="onset",
    params=(ParamSpec("level", "float", 0.5, 0.0, 1.0, 0.01, help="fraction of the maximum"),),
    run=_onset_run, prepare=_prepare_level, min_length=2)
FAKE_CP = DetectorSpec(
    name="fake_cp", label="Fake change points", version="1", produces="change_points",
    params=(ParamSpec("every", "int", 100, 2, 1000, 1, unit="samples", help="spacing"),),
    run=_cp_run)
FAKE_BOOM = DetectorSpec(name="fake_boom", label="Fake broken", version="1",
                         produces="change_points", params=(), run=_boom_run)
FAKE_SLOW = DetectorSpec(
    name="fake_slow", label="Fake slow", version="1", produces="onset",
    params=(_at_param(), ParamSpec("ms", "int", 300, 0, 5000, 10, help="run time")),
    run=_slow_run, slow=True)
FAKE_GATED = DetectorSpec(name="fake_gated", label="Fake gated", version="1",
                          produces="change_points", params=(_at_param(),), run=_gated_run)

FAST = (FAKE_ONSET, FAKE_CP)


@contextlib.contextmanager
def registered(*specs: DetectorSpec) -> Iterator[None]:
    """Register fake detectors for the duration of a test."""
    registry.all_specs()  # load the real ones first
    for s in specs:
        registry.register(s)
    try:
        yield
    finally:
        for s in specs:
            registry._REGISTRY.pop(s.name.lower(), None)
