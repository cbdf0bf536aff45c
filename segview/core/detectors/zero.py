"""The ``zero`` baseline: no change points at all (TCPDBench's ``zero`` method).

On the TCPD benchmark a method that reports nothing still scores the series start as a true positive,
and it is a strong baseline there: any detector worth running should beat it. It has no parameters,
accepts any length and is trivially invariant under ``a*y + b``.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..context import RunContext
from ..params import Params, Preset
from ..registry import Cost, DetectorSpec, register, register_multivariate
from ..result import DetectionResult


def _run(values: NDArray[np.float64], params: Params, ctx: RunContext) -> DetectionResult:
    return DetectionResult("zero", params, np.zeros(0, dtype=np.int64))

def cost(n: int, p: Params) -> Cost:
    """Nothing is computed (read by segview.core.limits)."""
    return Cost()



register(DetectorSpec(
    cost=cost,
    name="zero", label="No change (baseline)", version="1", produces="change_points", params=(),
    run=_run, min_length=1, affine_invariant=True,
    presets=(Preset("tcpdbench", {}, help="TCPDBench's zero method (it has no parameters)"),),
    citation="van den Burg & Williams (2020), TCPDBench's zero method",
    description="Reports no change point: the baseline every change-point detector should beat.",
))
register_multivariate("zero", _run)  # no change in any dimension either
